package dev.etl.deploy;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** RFC 6902 JSON patch operations {@code add}, {@code remove} and {@code replace} on parsed YAML; others are refused. */
final class JsonPatch {

    private JsonPatch() {}

    @SuppressWarnings("unchecked")
    static void apply(Map<String, Object> document, Map<String, Object> operation) {
        for (String field : operation.keySet()) {
            if (!Set.of("op", "path", "value").contains(field)) {
                throw new IllegalArgumentException("JSON patch field '" + field + "' is not supported: " + operation);
            }
        }
        String op = String.valueOf(operation.get("op"));
        String path = String.valueOf(operation.get("path"));
        if (!path.startsWith("/")) {
            throw new IllegalArgumentException("JSON pointer must start with '/': " + path);
        }
        List<String> tokens = new ArrayList<>();
        for (String token : path.substring(1).split("/", -1)) {
            tokens.add(token.replace("~1", "/").replace("~0", "~"));
        }
        Object parent = document;
        for (String token : tokens.subList(0, tokens.size() - 1)) {
            parent = child(parent, token, path);
        }
        String last = tokens.get(tokens.size() - 1);
        Object value = Kustomize.deepCopyValue(operation.get("value"));
        switch (op) {
            case "add" -> {
                if (parent instanceof Map<?, ?> map) {
                    ((Map<String, Object>) map).put(last, value);
                } else {
                    List<Object> list = (List<Object>) parent;
                    if (last.equals("-")) {
                        list.add(value);
                    } else {
                        list.add(index(list, last, path, true), value);
                    }
                }
            }
            case "remove", "replace" -> {
                if (parent instanceof Map<?, ?> map) {
                    if (!map.containsKey(last)) {
                        throw new IllegalArgumentException(op + ": " + path + " does not exist");
                    }
                    if (op.equals("remove")) {
                        map.remove(last);
                    } else {
                        ((Map<String, Object>) map).put(last, value);
                    }
                } else {
                    List<Object> list = (List<Object>) parent;
                    int i = index(list, last, path, false);
                    if (op.equals("remove")) {
                        list.remove(i);
                    } else {
                        list.set(i, value);
                    }
                }
            }
            default -> throw new IllegalArgumentException("JSON patch operation '" + op + "' is not supported");
        }
    }

    private static Object child(Object node, String token, String path) {
        Object child;
        if (node instanceof Map<?, ?> map) {
            child = map.get(token);
        } else if (node instanceof List<?> list) {
            child = list.get(index(list, token, path, false));
        } else {
            child = null;
        }
        if (!(child instanceof Map<?, ?>) && !(child instanceof List<?>)) {
            throw new IllegalArgumentException("JSON pointer " + path + ": no object or list at '" + token + "'");
        }
        return child;
    }

    private static int index(List<?> list, String token, String path, boolean end) {
        int i;
        try {
            i = Integer.parseInt(token);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("JSON pointer " + path + ": '" + token + "' is not a list index");
        }
        if (i < 0 || i > list.size() || (i == list.size() && !end)) {
            throw new IllegalArgumentException("JSON pointer " + path + ": index " + i + " out of bounds");
        }
        return i;
    }
}
