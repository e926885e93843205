package dev.etl.testcontainers;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.async.ResultCallback;
import com.github.dockerjava.api.exception.NotFoundException;
import com.github.dockerjava.api.model.PullResponseItem;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.platform.commons.support.AnnotationSupport;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.utility.DockerImageName;
import org.testcontainers.utility.ImageNameSubstitutor;

/**
 * The condition of {@link RequiresImages}: a Docker API answers, and each image is present or one pull
 * of it succeeds within {@link #PULL_TIMEOUT_S} seconds. The answer per image is kept for the test JVM,
 * so a missing image costs one failed pull, not one per class.
 */
final class ImagesAvailableCondition implements ExecutionCondition {

    /** The longest one pull may take before the image counts as not available. */
    static final long PULL_TIMEOUT_S = 300;

    /** Image (after substitution) to the reason it cannot be had, or "" when it can. */
    private static final Map<String, String> ANSWERS = new ConcurrentHashMap<>();

    @Override
    public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
        RequiresImages required = AnnotationSupport.findAnnotation(context.getElement(), RequiresImages.class)
                .orElse(null);
        if (required == null) {
            return ConditionEvaluationResult.enabled("no @RequiresImages");
        }
        if (!DockerClientFactory.instance().isDockerAvailable()) {
            return ConditionEvaluationResult.disabled("No Docker API answers (DOCKER_HOST, /var/run/docker.sock): "
                    + "the containers of this test cannot be started");
        }
        List<String> missing = new ArrayList<>();
        for (String image : required.value()) {
            String name = ImageNameSubstitutor.instance()
                    .apply(DockerImageName.parse(image))
                    .asCanonicalNameString();
            String reason = ANSWERS.computeIfAbsent(name, ImagesAvailableCondition::whyNotAvailable);
            if (!reason.isEmpty()) {
                missing.add(reason);
            }
        }
        if (!missing.isEmpty()) {
            return ConditionEvaluationResult.disabled(
                    "Skipped on the absence of an image it needs: " + String.join("; ", missing));
        }
        return ConditionEvaluationResult.enabled("the images are available: " + String.join(", ", required.value()));
    }

    /** @return "" when the image is present or was pulled, else why not */
    private static String whyNotAvailable(String name) {
        DockerClient client = DockerClientFactory.instance().client();
        try {
            client.inspectImageCmd(name).exec();
            return "";
        } catch (NotFoundException notHere) {
            // not present: try one pull
        }
        DockerImageName image = DockerImageName.parse(name);
        PullResult pull = new PullResult();
        try {
            boolean done = client.pullImageCmd(image.getUnversionedPart())
                    .withTag(image.getVersionPart())
                    .exec(pull)
                    .awaitCompletion(PULL_TIMEOUT_S, TimeUnit.SECONDS);
            if (!done) {
                return "image " + name + " is not present and its pull took longer than " + PULL_TIMEOUT_S + " s";
            }
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            return "image " + name + ": interrupted while pulling it";
        } catch (RuntimeException ex) {
            return "image " + name + " is not present and cannot be pulled here (" + firstLine(ex.getMessage()) + ")";
        }
        return (pull.error == null)
                ? ""
                : "image " + name + " is not present and cannot be pulled here (" + firstLine(pull.error) + ")";
    }

    /**
     * The pull's outcome: the error the API streamed, if any. (docker-java's own {@code PullImageResultCallback}
     * fails on the error items podman's API sends, which have no status, and loses their message.)
     */
    private static final class PullResult extends ResultCallback.Adapter<PullResponseItem> {

        private volatile String error;

        @Override
        public void onNext(PullResponseItem item) {
            if (item.getErrorDetail() != null && item.getErrorDetail().getMessage() != null) {
                this.error = item.getErrorDetail().getMessage();
            } else if (item.getError() != null) {
                this.error = item.getError();
            }
        }
    }

    private static String firstLine(String message) {
        if (message == null) {
            return "no message";
        }
        int newline = message.indexOf('\n');
        return (newline < 0) ? message : message.substring(0, newline);
    }
}
