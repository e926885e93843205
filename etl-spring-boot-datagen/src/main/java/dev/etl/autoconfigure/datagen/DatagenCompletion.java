package dev.etl.autoconfigure.datagen;

import dev.etl.autoconfigure.BoundedRunCompletion;
import dev.etl.autoconfigure.EtlPipelineLifecycle;
import dev.etl.autoconfigure.datagen.EtlDatagenProperties.WhenDone;
import dev.etl.datagen.DatagenSource;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.ApplicationContext;

/**
 * Ends a bounded datagen run the way {@code etl.source.datagen.when-done} says, once every record
 * generated is written and committed ({@link DatagenSource#onDone}); see {@link BoundedRunCompletion}.
 */
public class DatagenCompletion extends BoundedRunCompletion {

    DatagenCompletion(
            DatagenSource source,
            WhenDone whenDone,
            ApplicationContext context,
            ObjectProvider<EtlPipelineLifecycle> lifecycle,
            String pipeline) {
        super("datagen", "etl.source.datagen.when-done", Action.valueOf(whenDone.name()), context, lifecycle, pipeline);
        if (source.isBounded()) {
            source.onDone(this::done);
        }
    }
}
