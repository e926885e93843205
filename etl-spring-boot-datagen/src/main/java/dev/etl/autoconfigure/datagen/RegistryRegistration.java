package dev.etl.autoconfigure.datagen;

import dev.etl.autoconfigure.InvalidEtlConfigurationException;
import dev.etl.avro.SchemaRegistryClient;
import dev.etl.avro.SchemaRegistryException;
import org.apache.avro.Schema;

/** Registers the generated schema; loaded only when etl-avro and a registry client are there. */
final class RegistryRegistration {

    private RegistryRegistration() {}

    static int register(Object registry, String subject, Schema schema) {
        SchemaRegistryClient client = (SchemaRegistryClient) registry;
        try {
            return client.register(subject, schema);
        } catch (SchemaRegistryException ex) {
            throw new InvalidEtlConfigurationException(
                    "etl.source.datagen could not register its schema "
                            + schema.getFullName() + " under subject '" + subject + "' at " + client.baseUrl() + ": "
                            + ex.getMessage(),
                    "Check etl.avro.registry.url, or set etl.source.datagen.subject, or "
                            + "etl.source.datagen.schema-id to an id the registry already has.");
        }
    }
}
