package dev.etl.autoconfigure.datagen;

import dev.etl.autoconfigure.InvalidEtlConfigurationException;
import dev.etl.autoconfigure.datagen.EtlDatagenProperties.Encoding;
import dev.etl.datagen.AvroRecordGenerator;
import java.io.IOException;
import java.io.InputStream;
import org.apache.avro.Schema;
import org.apache.avro.SchemaParseException;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.util.ClassUtils;

/**
 * {@code etl.source.datagen.schema} into an {@link AvroRecordGenerator}. Loaded only when that property is
 * set and Avro is on the class path; the schema registry (etl-avro) is looked up by name, so it stays optional.
 */
final class AvroSchemaGenerators {

    static final String REGISTRY_CLIENT = "dev.etl.avro.SchemaRegistryClient";

    private AvroSchemaGenerators() {}

    static AvroRecordGenerator fromSchema(
            EtlDatagenProperties properties, BeanFactory beanFactory, ClassLoader loader) {
        Schema schema = parse(properties);
        AvroRecordGenerator.Builder builder = AvroRecordGenerator.builder(schema)
                .key(
                        (properties.getKey() == EtlDatagenProperties.KeyKind.NONE)
                                ? AvroRecordGenerator.Key.NONE
                                : AvroRecordGenerator.Key.ID);
        Object registry = registry(beanFactory, loader);
        Encoding encoding = properties.getEncoding();
        if (encoding == null) {
            encoding = (registry != null || properties.getSchemaId() != null) ? Encoding.CONFLUENT : Encoding.RAW;
        }
        switch (encoding) {
            case CONFLUENT:
                builder.confluent(schemaId(properties, schema, registry));
                break;
            case SINGLE_OBJECT:
                builder.singleObject();
                break;
            case RAW:
            default:
                builder.raw();
                break;
        }
        try {
            return builder.build();
        } catch (IllegalArgumentException ex) {
            throw new InvalidEtlConfigurationException(
                    "etl.source.datagen.schema (" + properties.getSchema() + ") cannot be generated: "
                            + ex.getMessage(),
                    "Fix the schema's \"datagen\" hints; " + "docs/connectors/datagen.md lists them.");
        }
    }

    private static Schema parse(EtlDatagenProperties properties) {
        try (InputStream in = properties.getSchema().getInputStream()) {
            return new Schema.Parser().parse(in);
        } catch (IOException ex) {
            throw new InvalidEtlConfigurationException(
                    "etl.source.datagen.schema (" + properties.getSchema() + ") cannot be read: " + ex.getMessage(),
                    "Point it at an Avro schema file, e.g. " + "classpath:order.avsc or file:/etc/etl/order.avsc.");
        } catch (SchemaParseException ex) {
            throw new InvalidEtlConfigurationException(
                    "etl.source.datagen.schema (" + properties.getSchema() + ") is not a valid Avro schema: "
                            + ex.getMessage(),
                    "Fix the schema.");
        }
    }

    private static Object registry(BeanFactory beanFactory, ClassLoader loader) {
        if (!ClassUtils.isPresent(REGISTRY_CLIENT, loader)) {
            return null;
        }
        return beanFactory
                .getBeanProvider(ClassUtils.resolveClassName(REGISTRY_CLIENT, loader))
                .getIfUnique();
    }

    private static int schemaId(EtlDatagenProperties properties, Schema schema, Object registry) {
        if (properties.getSchemaId() != null) {
            return properties.getSchemaId();
        }
        if (registry == null) {
            throw new InvalidEtlConfigurationException(
                    "etl.source.datagen.encoding is confluent, but there is no "
                            + "schema id: neither etl.source.datagen.schema-id nor a schema registry (etl.avro.registry.url) "
                            + "is configured",
                    "Set etl.avro.registry.url (the schema is registered there), or "
                            + "etl.source.datagen.schema-id, or use etl.source.datagen.encoding=raw.");
        }
        String subject = (properties.getSubject() != null) ? properties.getSubject() : properties.getTopic() + "-value";
        return RegistryRegistration.register(registry, subject, schema);
    }
}
