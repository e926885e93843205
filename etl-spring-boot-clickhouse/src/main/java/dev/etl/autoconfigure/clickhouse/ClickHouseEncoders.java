package dev.etl.autoconfigure.clickhouse;

import dev.etl.autoconfigure.PipelineAssemblyException;
import dev.etl.clickhouse.ClickHouseSinkConfig;
import dev.etl.clickhouse.RowBinaryEncoder;
import dev.etl.clickhouse.ValidationMode;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.springframework.beans.factory.BeanFactoryUtils;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.NoSuchBeanDefinitionException;
import org.springframework.beans.factory.NoUniqueBeanDefinitionException;
import org.springframework.beans.factory.annotation.BeanFactoryAnnotationUtils;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;

/**
 * Finds each ClickHouse sink's one encoder declaration, a {@link RowBinaryEncoder} bean: a named table's
 * is the bean qualified with the table's name ({@code @Qualifier("orders")}, or a bean named so); the
 * {@code etl.sink.clickhouse.table} sink's is the one bean (or the {@code @Primary} one) among those
 * not qualified for a named table. Without a match a sink whose validation is {@code OFF} has none
 * (chains pass theirs); otherwise the start fails saying what to declare.
 */
final class ClickHouseEncoders {

    private final ListableBeanFactory beanFactory;

    private final Set<String> tables;

    /** Over {@code beanFactory}'s beans, with the names of the named tables. */
    ClickHouseEncoders(ListableBeanFactory beanFactory, Set<String> tables) {
        this.beanFactory = beanFactory;
        this.tables = Set.copyOf(tables);
    }

    /** The encoder of named table {@code name}, or null when there is none and its validation is OFF. */
    RowBinaryEncoder<?> table(String name, ClickHouseSinkConfig config) {
        try {
            return BeanFactoryAnnotationUtils.qualifiedBeanOfType(this.beanFactory, RowBinaryEncoder.class, name);
        } catch (NoUniqueBeanDefinitionException ex) {
            throw new PipelineAssemblyException(
                    "The ClickHouse sink '" + name + "' (etl.sink.clickhouse.tables." + name
                            + ", table " + config.qualifiedTable() + ") has " + ex.getNumberOfBeansFound()
                            + " RowBinaryEncoder beans qualified \"" + name + "\": " + ex.getBeanNamesFound() + ".",
                    "Qualify exactly one RowBinaryEncoder bean with @Qualifier(\"" + name + "\"): it is the table's "
                            + "encoder, validated against the table and used for every row.");
        } catch (NoSuchBeanDefinitionException ex) {
            if (config.validation() == ValidationMode.OFF) {
                return null;
            }
            throw new PipelineAssemblyException(
                    "The ClickHouse sink '" + name + "' (etl.sink.clickhouse.tables." + name
                            + ", table " + config.qualifiedTable()
                            + ") validates the table against its encoder's columns "
                            + "(validation=" + config.validation()
                            + "), but there is no RowBinaryEncoder bean qualified \""
                            + name + "\".",
                    "Declare the table's encoder as @Bean @Qualifier(\"" + name + "\") RowBinaryEncoder<...> (the sink "
                            + "validates the table against it and writes every row with it; chains write to the table "
                            + "with .sink(\"" + name + "\", router)), or set etl.sink.clickhouse.tables." + name
                            + ".validation=off and pass the encoder in the chain.");
        }
    }

    /**
     * The encoder of the {@code etl.sink.clickhouse.table} sink, or null when there is none and its
     * validation is OFF.
     */
    RowBinaryEncoder<?> single(ClickHouseSinkConfig config) {
        List<String> candidates = singleCandidates();
        RowBinaryEncoder<?> encoder = chosen(candidates);
        if (encoder != null || config.validation() == ValidationMode.OFF) {
            return encoder;
        }
        String others = this.tables.isEmpty()
                ? ""
                : " (not counting those qualified for etl.sink.clickhouse.tables: " + this.tables + ")";
        throw new PipelineAssemblyException(
                "The ClickHouse sink for " + config.qualifiedTable() + " validates the "
                        + "table against its encoder's columns (etl.sink.clickhouse.validation=" + config.validation()
                        + "), but there "
                        + (candidates.isEmpty()
                                ? "is no RowBinaryEncoder bean"
                                : "are " + candidates.size() + " RowBinaryEncoder beans " + candidates
                                        + " and none is @Primary")
                        + others + ".",
                "Declare the sink's RowBinaryEncoder as a @Bean (the sink validates the table against it and writes "
                        + "every row with it; mark one @Primary if there are several), or set "
                        + "etl.sink.clickhouse.validation=off and pass the encoder in the chain.");
    }

    /** The encoder of the {@code etl.sink.clickhouse.table} sink, or null when it has none (or it is ambiguous). */
    RowBinaryEncoder<?> singleOrNull() {
        return chosen(singleCandidates());
    }

    private List<String> singleCandidates() {
        List<String> candidates = new ArrayList<>();
        for (String bean :
                BeanFactoryUtils.beanNamesForTypeIncludingAncestors(this.beanFactory, RowBinaryEncoder.class)) {
            if (this.tables.stream()
                    .noneMatch((table) ->
                            BeanFactoryAnnotationUtils.isQualifierMatch(table::equals, bean, this.beanFactory))) {
                candidates.add(bean);
            }
        }
        return candidates;
    }

    private RowBinaryEncoder<?> chosen(List<String> candidates) {
        String chosen = (candidates.size() == 1) ? candidates.get(0) : primary(candidates);
        return (chosen != null) ? this.beanFactory.getBean(chosen, RowBinaryEncoder.class) : null;
    }

    private String primary(List<String> candidates) {
        if (!(this.beanFactory instanceof ConfigurableListableBeanFactory factory)) {
            return null;
        }
        List<String> primary = candidates.stream()
                .filter((bean) -> factory.containsBeanDefinition(bean)
                        && factory.getBeanDefinition(bean).isPrimary())
                .toList();
        return (primary.size() == 1) ? primary.get(0) : null;
    }
}
