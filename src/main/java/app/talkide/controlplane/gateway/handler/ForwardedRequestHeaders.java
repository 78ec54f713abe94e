package app.talkide.controlplane.gateway.handler;

import jakarta.servlet.http.HttpServletRequest;
import java.util.Collections;
import java.util.Locale;
import java.util.Set;
import java.util.function.BiConsumer;

/**
 * Decides which of the worker's headers reach the upstream: an allow-list, so nothing the worker adds
 * (an {@code anthropic-organization-id}, its credentials, proxy headers about our network, anything new)
 * speaks to the API with our key. What passes: {@code anthropic-version} (defaulted when absent),
 * {@code anthropic-beta}, {@code content-type}, {@code accept}, and the SDKs' {@code x-stainless-*}
 * telemetry. Not {@code accept-encoding}: usage is read from the body, so it must come uncompressed.
 */
final class ForwardedRequestHeaders {

    static final Set<String> ALLOWED = Set.of("anthropic-version", "anthropic-beta", "content-type", "accept");

    static final String ALLOWED_PREFIX = "x-stainless-";

    private final String defaultVersion;

    ForwardedRequestHeaders(String defaultVersion) {
        this.defaultVersion = defaultVersion;
    }

    void copy(HttpServletRequest from, BiConsumer<String, String> to) {
        boolean version = false;
        boolean contentType = false;
        for (String name : Collections.list(from.getHeaderNames())) {
            String lower = name.toLowerCase(Locale.ROOT);
            if (!ALLOWED.contains(lower) && !lower.startsWith(ALLOWED_PREFIX)) {
                continue;
            }
            version |= lower.equals("anthropic-version");
            contentType |= lower.equals("content-type");
            for (String value : Collections.list(from.getHeaders(name))) {
                // The upstream client drops a value it may not send (a control character in it).
                to.accept(name, value);
            }
        }
        if (!version) {
            to.accept("anthropic-version", defaultVersion);
        }
        if (!contentType) {
            to.accept("content-type", "application/json");
        }
    }
}
