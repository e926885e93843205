package dev.etl.clickhouse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class ColumnLayoutsTest {
    private static final ClickHouseColumn ID = new ClickHouseColumn("id", "UInt64");
    private static final ClickHouseColumn NOTE = new ClickHouseColumn("note", "String");
    private static final ClickHouseColumn QTY = new ClickHouseColumn("qty", "UInt32");

    @Test
    void layoutZeroIsTheInitialListAndEachNewListGetsTheNextId() {
        ColumnLayouts layouts = ColumnLayouts.of(List.of(ID));
        assertThat(layouts.latest()).isZero();
        assertThat(layouts.columns(0)).containsExactly(ID);
        assertThat(layouts.register(List.of(ID, NOTE))).isEqualTo(1);
        assertThat(layouts.register(List.of(ID, NOTE, QTY))).isEqualTo(2);
        assertThat(layouts.latest()).isEqualTo(2);
        assertThat(layouts.columns(1)).containsExactly(ID, NOTE);
    }

    @Test
    void registeringAnEqualListReturnsItsExistingId() {
        ColumnLayouts layouts = ColumnLayouts.of(List.of(ID));
        int one = layouts.register(new ArrayList<>(List.of(ID, NOTE)));
        assertThat(layouts.register(List.of(ID, NOTE))).isEqualTo(one);
        assertThat(layouts.register(List.of(ID))).isZero();
        assertThat(layouts.latest()).isEqualTo(one);
    }

    @Test
    void anUnknownLayoutIsRefusedNamingIt() {
        ColumnLayouts layouts = ColumnLayouts.of(List.of(ID));
        assertThatThrownBy(() -> layouts.columns(3))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("unknown column layout 3");
        assertThatThrownBy(() -> layouts.columns(-1)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aListNamingAColumnTwiceIsRefused() {
        ColumnLayouts layouts = ColumnLayouts.of(List.of(ID));
        assertThatThrownBy(() -> layouts.register(List.of(ID, new ClickHouseColumn("id", "String"))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("twice");
    }

    @Test
    void registeredListsAreCopiesThatNeverChange() {
        List<ClickHouseColumn> mine = new ArrayList<>(List.of(ID));
        ColumnLayouts layouts = ColumnLayouts.of(mine);
        mine.add(NOTE);
        assertThat(layouts.columns(0)).containsExactly(ID);
        assertThatThrownBy(() -> layouts.columns(0).add(QTY)).isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void concurrentRegistrationsGiveOneIdPerDistinctListAndReadersSeeEveryRegisteredLayout() throws Exception {
        ColumnLayouts layouts = ColumnLayouts.of(List.of(ID));
        int threads = 4;
        int lists = 50;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        ConcurrentHashMap<Integer, Integer> idByList = new ConcurrentHashMap<>();
        CountDownLatch go = new CountDownLatch(1);
        try {
            List<Future<?>> futures = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                futures.add(pool.submit(() -> {
                    go.await();
                    for (int n = 0; n < lists; n++) {
                        int id = layouts.register(List.of(ID, new ClickHouseColumn("c" + n, "String")));
                        Integer before = idByList.putIfAbsent(n, id);
                        assertThat(before == null || before == id).isTrue();
                        assertThat(layouts.columns(id)).hasSize(2);
                        assertThat(layouts.latest()).isGreaterThanOrEqualTo(id);
                    }
                    return null;
                }));
            }
            go.countDown();
            for (Future<?> f : futures) {
                f.get(10, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(layouts.latest()).isEqualTo(lists);
        assertThat(idByList.values()).doesNotHaveDuplicates().hasSize(lists);
    }
}
