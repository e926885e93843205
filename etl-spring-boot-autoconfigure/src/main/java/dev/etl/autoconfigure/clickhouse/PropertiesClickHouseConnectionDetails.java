package dev.etl.autoconfigure.clickhouse;

import java.net.URI;
import java.util.List;

/** {@link ClickHouseConnectionDetails} from {@code etl.sink.clickhouse.*}. */
class PropertiesClickHouseConnectionDetails implements ClickHouseConnectionDetails {

    private final EtlClickHouseProperties properties;

    PropertiesClickHouseConnectionDetails(EtlClickHouseProperties properties) {
        this.properties = properties;
    }

    @Override
    public List<List<URI>> getShards() {
        return this.properties.getShards().stream().map((shard) -> List.copyOf(shard.getReplicas())).toList();
    }

    @Override
    public String getUsername() {
        return this.properties.getUsername();
    }

    @Override
    public String getPassword() {
        return this.properties.getPassword();
    }

}
