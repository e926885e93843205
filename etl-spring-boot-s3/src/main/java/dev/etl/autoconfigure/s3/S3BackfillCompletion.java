package dev.etl.autoconfigure.s3;

import dev.etl.autoconfigure.BoundedRunCompletion;
import dev.etl.autoconfigure.EtlPipelineLifecycle;
import dev.etl.s3.S3BackfillSource;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.ApplicationContext;

/**
 * Ends a backfill the way {@code etl.source.s3.when-done} says once the group has committed the whole
 * work list ({@link S3BackfillSource#onDone}); see {@link BoundedRunCompletion}.
 */
public class S3BackfillCompletion extends BoundedRunCompletion {

    S3BackfillCompletion(
            S3BackfillSource source,
            EtlS3Properties.WhenDone whenDone,
            ApplicationContext context,
            ObjectProvider<EtlPipelineLifecycle> lifecycle,
            String pipeline) {
        super("backfill", "etl.source.s3.when-done", Action.valueOf(whenDone.name()), context, lifecycle, pipeline);
        source.onDone(this::done);
    }
}
