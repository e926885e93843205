package dev.etl.deploy;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.google.gson.JsonElement;
import com.google.gson.JsonParser;
import io.fabric8.kubernetes.api.model.KubernetesResource;
import io.kubernetes.client.openapi.JSON;
import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1Job;
import io.kubernetes.client.openapi.models.V1NetworkPolicy;
import io.kubernetes.client.openapi.models.V1PodDisruptionBudget;
import io.kubernetes.client.openapi.models.V1Secret;
import io.kubernetes.client.openapi.models.V1Service;
import io.kubernetes.client.openapi.models.V1ServiceAccount;
import io.kubernetes.client.openapi.models.V1StatefulSet;
import io.kubernetes.client.openapi.models.V2HorizontalPodAutoscaler;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Collection;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Strict schema checks of one Kubernetes object, as parsed from YAML.
 *
 * <ul>
 *   <li>Kubernetes' own kinds are read by the official Java client's models ({@code io.kubernetes:client-java-api},
 *       generated from the API server's OpenAPI document). Their readers refuse a field the schema does not
 *       have and a missing required field, at every depth; the object is then written back and must equal
 *       the input, so a value of the wrong type (a string where a number belongs) cannot pass by coercion.
 *   <li>The Prometheus Operator's kinds ({@code monitoring.coreos.com/v1}) are read by fabric8's models
 *       ({@code io.fabric8:openshift-model-monitoring}, generated from the operator's CRDs). They keep an
 *       unknown field in an {@code additionalProperties} map instead of refusing it, so every such map in the
 *       object graph must be empty; the same round trip then catches coerced values.
 *   <li>Any other kind is refused: add its model here first.
 * </ul>
 */
final class ManifestSchema {

    /** "apiVersion kind" → the client-java model. */
    static final Map<String, Class<?>> KUBERNETES = Map.of(
            "v1 Secret", V1Secret.class,
            "v1 Service", V1Service.class,
            "v1 ServiceAccount", V1ServiceAccount.class,
            "v1 ConfigMap", V1ConfigMap.class,
            "apps/v1 StatefulSet", V1StatefulSet.class,
            "policy/v1 PodDisruptionBudget", V1PodDisruptionBudget.class,
            "autoscaling/v2 HorizontalPodAutoscaler", V2HorizontalPodAutoscaler.class,
            "batch/v1 Job", V1Job.class,
            "networking.k8s.io/v1 NetworkPolicy", V1NetworkPolicy.class);

    /** "apiVersion kind" → the fabric8 model of a CRD. */
    static final Map<String, Class<? extends KubernetesResource>> CUSTOM = Map.of(
            "monitoring.coreos.com/v1 PodMonitor", io.fabric8.openshift.api.model.monitoring.v1.PodMonitor.class,
            "monitoring.coreos.com/v1 ServiceMonitor",
                    io.fabric8.openshift.api.model.monitoring.v1.ServiceMonitor.class,
            "monitoring.coreos.com/v1 PrometheusRule",
                    io.fabric8.openshift.api.model.monitoring.v1.PrometheusRule.class);

    /** fabric8's IntOrString, written as the one value it holds (fabric8's client registers the same). */
    private static final com.fasterxml.jackson.databind.Module INT_OR_STRING =
            new com.fasterxml.jackson.databind.module.SimpleModule()
                    .addSerializer(
                            io.fabric8.kubernetes.api.model.IntOrString.class,
                            new com.fasterxml.jackson.databind.JsonSerializer<>() {
                                @Override
                                public void serialize(
                                        io.fabric8.kubernetes.api.model.IntOrString value,
                                        com.fasterxml.jackson.core.JsonGenerator gen,
                                        com.fasterxml.jackson.databind.SerializerProvider serializers)
                                        throws java.io.IOException {
                                    serializers.defaultSerializeValue(value.getValue(), gen);
                                }
                            });

    private static final ObjectMapper JACKSON = JsonMapper.builder()
            .addModule(INT_OR_STRING)
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
            .disable(MapperFeature.ALLOW_COERCION_OF_SCALARS)
            .build();

    private ManifestSchema() {}

    /** Checks {@code object}; throws {@link IllegalArgumentException} naming {@code where} and the problem. */
    static void validate(Map<String, Object> object, String where) {
        String type = object.get("apiVersion") + " " + object.get("kind");
        String json;
        try {
            json = JACKSON.writeValueAsString(object);
        } catch (Exception e) {
            throw new IllegalArgumentException(where + ": " + e.getMessage(), e);
        }
        Class<?> model = KUBERNETES.get(type);
        if (model != null) {
            Object parsed;
            try {
                parsed = JSON.deserialize(json, model);
            } catch (RuntimeException e) {
                throw new IllegalArgumentException(
                        where + " (" + type + ") does not match the Kubernetes API schema: " + e.getMessage(), e);
            }
            JsonElement in = JsonParser.parseString(json);
            JsonElement out = JsonParser.parseString(JSON.serialize(parsed));
            String difference = difference(normalize(in), normalize(out), "");
            if (difference != null) {
                throw new IllegalArgumentException(where + " (" + type + ") changes when read by the API's model"
                        + " (a value of the wrong type, or not in its canonical form?): " + difference);
            }
            return;
        }
        Class<? extends KubernetesResource> custom = CUSTOM.get(type);
        if (custom != null) {
            KubernetesResource parsed;
            try {
                parsed = JACKSON.readValue(json, custom);
            } catch (Exception e) {
                throw new IllegalArgumentException(
                        where + " (" + type + ") does not match the CRD's schema: " + e.getMessage(), e);
            }
            List<String> unknown = new ArrayList<>();
            unknownFields(parsed, "", unknown, new IdentityHashMap<>());
            if (!unknown.isEmpty()) {
                throw new IllegalArgumentException(
                        where + " (" + type + ") has fields the CRD does not define: " + unknown);
            }
            JsonNode in;
            JsonNode out;
            try {
                in = JACKSON.readTree(json);
                out = JACKSON.valueToTree(parsed);
            } catch (Exception e) {
                throw new IllegalArgumentException(where + ": " + e.getMessage(), e);
            }
            if (!in.equals(out)) {
                throw new IllegalArgumentException(where + " (" + type + ") changes when read by the CRD's model"
                        + " (a value of the wrong type?):\n  written: " + in + "\n  read:    " + out);
            }
            return;
        }
        throw new IllegalArgumentException(
                where + ": no schema for " + type + " (known: " + KUBERNETES.keySet() + ", " + CUSTOM.keySet() + ")");
    }

    /**
     * The models start with empty lists and maps, which they write back: an empty list or map is the same as
     * none. (Numbers compare by value, 3 as 3.0, and never equal a string.)
     */
    private static JsonElement normalize(JsonElement e) {
        if (e.isJsonObject()) {
            com.google.gson.JsonObject out = new com.google.gson.JsonObject();
            e.getAsJsonObject().entrySet().forEach(x -> {
                JsonElement value = normalize(x.getValue());
                if (!isEmpty(value)) {
                    out.add(x.getKey(), value);
                }
            });
            return out;
        }
        if (e.isJsonArray()) {
            com.google.gson.JsonArray out = new com.google.gson.JsonArray();
            e.getAsJsonArray().forEach(x -> out.add(normalize(x)));
            return out;
        }
        return e;
    }

    /** Where {@code a} and {@code b} first differ, or null. */
    static String difference(JsonElement a, JsonElement b, String path) {
        if (a.equals(b)) {
            return null;
        }
        if (a.isJsonObject() && b.isJsonObject()) {
            Set<String> keys = new java.util.TreeSet<>(a.getAsJsonObject().keySet());
            keys.addAll(b.getAsJsonObject().keySet());
            for (String key : keys) {
                JsonElement x = a.getAsJsonObject().get(key);
                JsonElement y = b.getAsJsonObject().get(key);
                if (x == null || y == null) {
                    return path + "." + key + ": written " + x + ", read " + y;
                }
                String d = difference(x, y, path + "." + key);
                if (d != null) {
                    return d;
                }
            }
        }
        if (a.isJsonArray()
                && b.isJsonArray()
                && a.getAsJsonArray().size() == b.getAsJsonArray().size()) {
            for (int i = 0; i < a.getAsJsonArray().size(); i++) {
                String d =
                        difference(a.getAsJsonArray().get(i), b.getAsJsonArray().get(i), path + "[" + i + "]");
                if (d != null) {
                    return d;
                }
            }
        }
        return path + ": written " + a + ", read " + b;
    }

    private static boolean isEmpty(JsonElement e) {
        return (e.isJsonObject() && e.getAsJsonObject().isEmpty())
                || (e.isJsonArray() && e.getAsJsonArray().isEmpty());
    }

    /** Paths of the non-empty {@code additionalProperties} maps of fabric8 objects under {@code node}. */
    private static void unknownFields(Object node, String path, List<String> out, Map<Object, Boolean> seen) {
        if (node == null || seen.put(node, Boolean.TRUE) != null) {
            return;
        }
        if (node instanceof Map<?, ?> map) {
            map.forEach((k, v) -> unknownFields(v, path + "." + k, out, seen));
            return;
        }
        if (node instanceof Collection<?> list) {
            int i = 0;
            for (Object item : list) {
                unknownFields(item, path + "[" + i++ + "]", out, seen);
            }
            return;
        }
        if (!node.getClass().getName().startsWith("io.fabric8.")) {
            return;
        }
        for (Method m : node.getClass().getMethods()) {
            if (m.getParameterCount() != 0
                    || Modifier.isStatic(m.getModifiers())
                    || !m.getName().startsWith("get")
                    || m.getDeclaringClass() == Object.class) {
                continue;
            }
            Object value;
            try {
                value = m.invoke(node);
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException(e);
            }
            if (m.getName().equals("getAdditionalProperties")) {
                if (value instanceof Map<?, ?> extra && !extra.isEmpty()) {
                    extra.keySet().forEach(k -> out.add((path.isEmpty() ? "" : path + ".") + k));
                }
                continue;
            }
            String field =
                    Character.toLowerCase(m.getName().charAt(3)) + m.getName().substring(4);
            if (!Set.of("class").contains(field)) {
                unknownFields(value, path.isEmpty() ? field : path + "." + field, out, seen);
            }
        }
    }
}
