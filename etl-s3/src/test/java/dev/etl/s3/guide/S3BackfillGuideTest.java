package dev.etl.s3.guide;

import static org.assertj.core.api.Assertions.assertThat;

import dev.etl.kafka.KafkaSourceConfig;
import dev.etl.s3.BackfillPlanner;
import dev.etl.s3.S3BackfillConfig;
import dev.etl.s3.S3BackfillSource;
import dev.etl.s3.S3ObjectStore;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The code of docs/connectors/s3.md "Without Spring": compiled, and built without connecting anywhere. */
class S3BackfillGuideTest {

    @Test
    void theGuidesPlainJavaBackfillBuilds() {
        // tag::plain[]
        S3ObjectStore store = S3ObjectStore.builder()
                .endpoint("http://127.0.0.1:19300") // leave out for AWS S3
                .region("us-east-1")
                .credentials("etl-local", System.getenv().getOrDefault("S3_SECRET_KEY", "secret"))
                .pathStyleAccess(true)
                .build();
        Map<String, Object> kafka = Map.of("bootstrap.servers", "127.0.0.1:19092");

        // 1. Once: list, split and write the work list (nothing is written when the topic already holds one).
        BackfillPlanner planner = BackfillPlanner.builder()
                .store(store)
                .kafka(kafka)
                .workTopic("orders-backfill-work")
                .partitions(8)
                .bucket("orders-archive")
                .prefix("orders/2025/")
                .build();
        // BackfillPlanner.Result result = planner.plan();

        // 2. On every instance: the source, in place of the Kafka source, with the topic's chains.
        S3BackfillSource source = new S3BackfillSource(S3BackfillConfig.builder()
                .workTopic(KafkaSourceConfig.builder()
                        .properties(kafka)
                        .property("group.id", "orders-backfill")
                        .topics("orders-backfill-work")
                        .build())
                .store(store)
                .bucket("orders-archive") // the plan's scope: work items of other objects are refused
                .prefix("orders/2025/")
                .topic("orders") // the rows go through the chain of topic "orders"
                .build());
        source.onDone(() -> System.out.println("every work item is committed")); // then shut the pipeline down
        // Pipeline.builder(config).source(source).sink(...).chains(...).build().start();
        // end::plain[]
        assertThat(planner).isNotNull();
        assertThat(source.describe()).contains("orders-backfill-work", "orders-backfill", "topic=orders");
        source.close();
    }
}
