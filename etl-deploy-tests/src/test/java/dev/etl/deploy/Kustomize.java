package dev.etl.deploy;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

/**
 * The part of Kustomize that {@code deploy/kubernetes} uses, so its overlays can be rendered and checked
 * where no {@code kustomize} (or {@code kubectl kustomize}) is installed: {@code resources} (files and
 * directories), {@code components}, {@code patches} (strategic merge and JSON 6902, targeted by kind and
 * name), {@code namespace}, {@code replicas} and {@code images}, applied in Kustomize's order (patches,
 * namespace, replicas, images). Anything else in a kustomization — a field, a patch directive, a target
 * selector, a JSON patch operation — is refused with its name, so an overlay cannot use a feature this
 * renderer would silently get wrong. {@code DeployManifestsTest} compares its output with
 * {@code kubectl kustomize} where that is installed.
 */
final class Kustomize {

    static final Set<String> KUSTOMIZATION_FIELDS =
            Set.of("apiVersion", "kind", "resources", "components", "patches", "namespace", "replicas", "images");

    static final Set<String> KUSTOMIZATION_FILES = Set.of("kustomization.yaml", "kustomization.yml", "Kustomization");

    /** Kinds without a namespace, among those a deployment may carry. */
    static final Set<String> CLUSTER_SCOPED = Set.of(
            "Namespace",
            "ClusterRole",
            "ClusterRoleBinding",
            "CustomResourceDefinition",
            "PriorityClass",
            "StorageClass",
            "PersistentVolume",
            "ValidatingWebhookConfiguration",
            "MutatingWebhookConfiguration");

    /** Merge keys of the lists a strategic merge patch merges (by field name), as Kubernetes' API declares them. */
    static final Map<String, String> MERGE_KEYS = Map.of(
            "containers", "name",
            "initContainers", "name",
            "ephemeralContainers", "name",
            "env", "name",
            "volumes", "name",
            "volumeMounts", "mountPath",
            "imagePullSecrets", "name");

    /** Kinds whose {@code spec.replicas} the {@code replicas} field sets. */
    static final Set<String> SCALABLE = Set.of("Deployment", "StatefulSet", "ReplicaSet", "ReplicationController");

    private Kustomize() {}

    /** Renders the kustomization in {@code dir} (a {@code Kustomization}, not a {@code Component}). */
    static List<Map<String, Object>> render(Path dir) {
        Map<String, Object> kustomization = kustomization(dir);
        if (!"Kustomization".equals(kustomization.getOrDefault("kind", "Kustomization"))) {
            throw new IllegalArgumentException(dir + " is a " + kustomization.get("kind") + ", not a Kustomization");
        }
        return build(dir, kustomization);
    }

    /** The kustomization file of {@code dir}, its fields checked. */
    @SuppressWarnings("unchecked")
    static Map<String, Object> kustomization(Path dir) {
        Path file = kustomizationFile(dir);
        if (file == null) {
            throw new IllegalArgumentException(dir + " has no kustomization.yaml");
        }
        Map<String, Object> k = (Map<String, Object>) load(file).get(0);
        for (String field : k.keySet()) {
            if (!KUSTOMIZATION_FIELDS.contains(field)) {
                throw new IllegalArgumentException(file + ": field '" + field
                        + "' is not supported by this renderer (supported: " + KUSTOMIZATION_FIELDS + ")");
            }
        }
        return k;
    }

    static Path kustomizationFile(Path dir) {
        for (String name : KUSTOMIZATION_FILES) {
            if (Files.isRegularFile(dir.resolve(name))) {
                return dir.resolve(name);
            }
        }
        return null;
    }

    @SuppressWarnings("unchecked")
    private static List<Map<String, Object>> build(Path dir, Map<String, Object> k) {
        List<Map<String, Object>> out = new ArrayList<>();
        for (String entry : strings(k.get("resources"))) {
            Path path = dir.resolve(entry).normalize();
            if (Files.isDirectory(path)) {
                out.addAll(render(path));
            } else {
                requireUnder(dir, path, "resource");
                for (Object doc : load(path)) {
                    out.add((Map<String, Object>) doc);
                }
            }
        }
        for (String entry : strings(k.get("components"))) {
            Path path = dir.resolve(entry).normalize();
            Map<String, Object> component = kustomization(path);
            if (!"Component".equals(component.get("kind"))) {
                throw new IllegalArgumentException(
                        path + " is listed as a component but is a " + component.get("kind"));
            }
            List<Map<String, Object>> added = build(path, component);
            // a component's build transforms what it was given plus its own resources
            out = applyComponent(out, added, path, component);
        }
        if (!"Component".equals(k.get("kind"))) {
            out = transform(out, dir, k);
        }
        checkUnique(out);
        return out;
    }

    /** What a component does to the resources accumulated so far: adds its own, then transforms them all. */
    private static List<Map<String, Object>> applyComponent(
            List<Map<String, Object>> accumulated, List<Map<String, Object>> own, Path dir, Map<String, Object> k) {
        List<Map<String, Object>> all = new ArrayList<>(accumulated);
        all.addAll(own);
        return transform(all, dir, k);
    }

    @SuppressWarnings("unchecked")
    private static List<Map<String, Object>> transform(List<Map<String, Object>> in, Path dir, Map<String, Object> k) {
        List<Map<String, Object>> out = new ArrayList<>();
        in.forEach(r -> out.add(deepCopy(r)));
        for (Object p : list(k.get("patches"))) {
            applyPatch(out, dir, (Map<String, Object>) p);
        }
        Object namespace = k.get("namespace");
        if (namespace != null) {
            for (Map<String, Object> r : out) {
                if (!CLUSTER_SCOPED.contains(String.valueOf(r.get("kind")))) {
                    metadata(r).put("namespace", String.valueOf(namespace));
                }
            }
        }
        for (Object o : list(k.get("replicas"))) {
            Map<String, Object> replicas = (Map<String, Object>) o;
            checkFields(replicas, Set.of("name", "count"), dir + " replicas");
            boolean found = false;
            for (Map<String, Object> r : out) {
                if (SCALABLE.contains(String.valueOf(r.get("kind")))
                        && replicas.get("name").equals(name(r))) {
                    ((Map<String, Object>) r.computeIfAbsent("spec", x -> new LinkedHashMap<>()))
                            .put("replicas", replicas.get("count"));
                    found = true;
                }
            }
            if (!found) {
                throw new IllegalArgumentException(dir + ": replicas of '" + replicas.get("name") + "' match nothing");
            }
        }
        for (Object o : list(k.get("images"))) {
            Map<String, Object> image = (Map<String, Object>) o;
            checkFields(image, Set.of("name", "newName", "newTag", "digest"), dir + " images");
            out.forEach(r -> setImages(r, image));
        }
        return out;
    }

    // ------------------------------------------------------------------ patches

    @SuppressWarnings("unchecked")
    private static void applyPatch(List<Map<String, Object>> resources, Path dir, Map<String, Object> patch) {
        checkFields(patch, Set.of("path", "patch", "target"), dir + " patches");
        List<Object> docs;
        if (patch.containsKey("path")) {
            Path file = dir.resolve(String.valueOf(patch.get("path"))).normalize();
            requireUnder(dir, file, "patch");
            docs = load(file);
        } else {
            docs = loadAll(String.valueOf(patch.get("patch")), dir + " inline patch");
        }
        if (docs.size() != 1) {
            throw new IllegalArgumentException(dir + ": a patch must be one document, got " + docs.size());
        }
        Object body = docs.get(0);
        Map<String, Object> target = (Map<String, Object>) patch.get("target");
        if (target != null) {
            checkFields(target, Set.of("kind", "name"), dir + " patch target");
        }
        if (body instanceof List<?> ops) {
            if (target == null) {
                throw new IllegalArgumentException(dir + ": a JSON 6902 patch needs a target");
            }
            List<Map<String, Object>> matched = matching(resources, target, dir);
            for (Map<String, Object> r : matched) {
                for (Object op : ops) {
                    JsonPatch.apply(r, (Map<String, Object>) op);
                }
            }
            return;
        }
        Map<String, Object> smp = (Map<String, Object>) body;
        Map<String, Object> selector = target != null ? target : Map.of("kind", smp.get("kind"), "name", name(smp));
        for (Map<String, Object> r : matching(resources, selector, dir)) {
            Map<String, Object> p = deepCopy(smp);
            // the patch's own identity is not applied (a targeted patch may name another object)
            p.remove("apiVersion");
            p.remove("kind");
            Map<String, Object> meta = (Map<String, Object>) p.get("metadata");
            if (meta != null) {
                meta.remove("name");
                meta.remove("namespace");
                if (meta.isEmpty()) {
                    p.remove("metadata");
                }
            }
            mergeMap(r, p, "");
        }
    }

    private static List<Map<String, Object>> matching(
            List<Map<String, Object>> resources, Map<String, Object> target, Path dir) {
        List<Map<String, Object>> out = new ArrayList<>();
        for (Map<String, Object> r : resources) {
            if ((target.get("kind") == null || target.get("kind").equals(r.get("kind")))
                    && (target.get("name") == null || target.get("name").equals(name(r)))) {
                out.add(r);
            }
        }
        if (out.isEmpty()) {
            throw new IllegalArgumentException(dir + ": patch target " + target + " matches no resource");
        }
        return out;
    }

    /**
     * Strategic merge of {@code patch} into {@code into}: maps merge key by key, {@code null} deletes, lists
     * with a merge key ({@link #MERGE_KEYS}) merge element by element — the patch's elements first, in its
     * order, then the original's other elements, as Kustomize orders them — and any other list is replaced.
     */
    @SuppressWarnings("unchecked")
    static void mergeMap(Map<String, Object> into, Map<String, Object> patch, String path) {
        for (Map.Entry<String, Object> e : patch.entrySet()) {
            String key = e.getKey();
            if (key.startsWith("$")) {
                throw new IllegalArgumentException("patch directive " + key + " at " + path + " is not supported");
            }
            Object value = e.getValue();
            Object current = into.get(key);
            if (value == null) {
                into.remove(key);
            } else if (value instanceof Map<?, ?> m && current instanceof Map<?, ?> c) {
                mergeMap((Map<String, Object>) c, (Map<String, Object>) m, path + "/" + key);
            } else if (value instanceof List<?> l && current instanceof List<?> c && MERGE_KEYS.containsKey(key)) {
                into.put(key, mergeList((List<Object>) c, (List<Object>) l, MERGE_KEYS.get(key), path + "/" + key));
            } else {
                into.put(key, deepCopyValue(value));
            }
        }
    }

    @SuppressWarnings("unchecked")
    private static List<Object> mergeList(List<Object> original, List<Object> patch, String mergeKey, String path) {
        List<Object> out = new ArrayList<>();
        Set<Object> patched = new LinkedHashSet<>();
        for (Object p : patch) {
            Map<String, Object> item = (Map<String, Object>) p;
            Object key = item.get(mergeKey);
            if (key == null) {
                throw new IllegalArgumentException("patch element of " + path + " has no merge key " + mergeKey);
            }
            patched.add(key);
            Map<String, Object> merged = null;
            for (Object o : original) {
                if (key.equals(((Map<String, Object>) o).get(mergeKey))) {
                    merged = deepCopy((Map<String, Object>) o);
                    mergeMap(merged, item, path + "[" + key + "]");
                }
            }
            out.add(merged != null ? merged : deepCopy(item));
        }
        for (Object o : original) {
            if (!patched.contains(((Map<String, Object>) o).get(mergeKey))) {
                out.add(o);
            }
        }
        return out;
    }

    // ------------------------------------------------------------------ images

    @SuppressWarnings("unchecked")
    private static void setImages(Object node, Map<String, Object> image) {
        if (node instanceof Map<?, ?> map) {
            for (Map.Entry<String, Object> e : ((Map<String, Object>) map).entrySet()) {
                if ((e.getKey().equals("containers") || e.getKey().equals("initContainers"))
                        && e.getValue() instanceof List<?> containers) {
                    for (Object c : containers) {
                        Map<String, Object> container = (Map<String, Object>) c;
                        Object current = container.get("image");
                        if (current != null) {
                            container.put("image", retag(String.valueOf(current), image));
                        }
                    }
                } else {
                    setImages(e.getValue(), image);
                }
            }
        } else if (node instanceof List<?> list) {
            list.forEach(item -> setImages(item, image));
        }
    }

    /** {@code reference} with Kustomize's {@code images} entry applied, if it names the reference's image. */
    static String retag(String reference, Map<String, Object> image) {
        int at = reference.indexOf('@');
        String withoutDigest = at >= 0 ? reference.substring(0, at) : reference;
        int colon = withoutDigest.lastIndexOf(':');
        String name = colon > withoutDigest.lastIndexOf('/') ? withoutDigest.substring(0, colon) : withoutDigest;
        String tag = colon > withoutDigest.lastIndexOf('/') ? withoutDigest.substring(colon) : "";
        String digest = at >= 0 ? reference.substring(at) : "";
        if (!name.equals(image.get("name"))) {
            return reference;
        }
        if (image.get("newName") != null) {
            name = String.valueOf(image.get("newName"));
        }
        if (image.get("digest") != null) {
            return name + "@" + image.get("digest");
        }
        if (image.get("newTag") != null) {
            return name + ":" + image.get("newTag");
        }
        return name + tag + digest;
    }

    // ------------------------------------------------------------------ helpers

    private static void checkUnique(List<Map<String, Object>> resources) {
        Set<String> ids = new LinkedHashSet<>();
        for (Map<String, Object> r : resources) {
            String id = id(r);
            if (!ids.add(id)) {
                throw new IllegalArgumentException("two resources are " + id);
            }
        }
    }

    /** apiVersion kind namespace/name. */
    @SuppressWarnings("unchecked")
    static String id(Map<String, Object> r) {
        Object ns = ((Map<String, Object>) r.getOrDefault("metadata", Map.of())).get("namespace");
        return r.get("apiVersion") + " " + r.get("kind") + " " + (ns == null ? "" : ns + "/") + name(r);
    }

    @SuppressWarnings("unchecked")
    static String name(Map<String, Object> r) {
        return String.valueOf(((Map<String, Object>) r.getOrDefault("metadata", Map.of())).get("name"));
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> metadata(Map<String, Object> r) {
        return (Map<String, Object>) r.computeIfAbsent("metadata", x -> new LinkedHashMap<>());
    }

    private static void requireUnder(Path root, Path file, String what) {
        if (!file.startsWith(root.normalize())) {
            throw new IllegalArgumentException(
                    what + " " + file + " is outside " + root + " (Kustomize loads files only from inside a"
                            + " kustomization's directory; make it a directory with a kustomization)");
        }
        if (!Files.isRegularFile(file)) {
            throw new IllegalArgumentException(what + " " + file + " does not exist");
        }
    }

    private static void checkFields(Map<String, Object> map, Set<String> allowed, String where) {
        for (String field : map.keySet()) {
            if (!allowed.contains(field)) {
                throw new IllegalArgumentException(where + ": field '" + field + "' is not supported by this renderer");
            }
        }
    }

    @SuppressWarnings("unchecked")
    private static List<String> strings(Object value) {
        return value == null ? List.of() : (List<String>) value;
    }

    private static List<?> list(Object value) {
        return value == null ? List.of() : (List<?>) value;
    }

    static List<Object> load(Path file) {
        try {
            return loadAll(Files.readString(file), file.toString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static List<Object> loadAll(String text, String where) {
        LoaderOptions options = new LoaderOptions();
        options.setAllowDuplicateKeys(false);
        List<Object> out = new ArrayList<>();
        for (Object doc : new Yaml(new SafeConstructor(options)).loadAll(text)) {
            if (doc != null) {
                out.add(doc);
            }
        }
        if (out.isEmpty()) {
            throw new IllegalArgumentException(where + " holds no YAML document");
        }
        return out;
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> deepCopy(Map<String, Object> map) {
        return (Map<String, Object>) deepCopyValue(map);
    }

    @SuppressWarnings("unchecked")
    static Object deepCopyValue(Object value) {
        if (value instanceof Map<?, ?> m) {
            Map<String, Object> out = new LinkedHashMap<>();
            ((Map<String, Object>) m).forEach((k, v) -> out.put(k, deepCopyValue(v)));
            return out;
        }
        if (value instanceof List<?> l) {
            List<Object> out = new ArrayList<>();
            l.forEach(v -> out.add(deepCopyValue(v)));
            return out;
        }
        return value;
    }
}
