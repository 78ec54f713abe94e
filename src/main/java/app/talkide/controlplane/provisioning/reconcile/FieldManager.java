package app.talkide.controlplane.provisioning.reconcile;

import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.http.BasicBuilder;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.Interceptor;
import java.net.URI;
import java.util.Set;

/**
 * Names the control plane as the field manager of every write ({@code ?fieldManager=talkide-control-plane}
 * on each POST, PUT and PATCH), so {@code managedFields} says who set a field and operators can tell its
 * writes from their own or a webhook's. One interceptor on the client instead of a parameter at every call
 * site: no write can be left without it (fabric8 offers it per call only for patches).
 */
public final class FieldManager implements Interceptor {

    public static final String NAME = "talkide-control-plane";
    private static final Set<String> WRITES = Set.of("POST", "PUT", "PATCH");

    /** The builder with this interceptor installed. */
    public static KubernetesClientBuilder install(KubernetesClientBuilder builder) {
        return builder.withHttpClientBuilderConsumer(
                http -> http.addOrReplaceInterceptor("field-manager", new FieldManager()));
    }

    @Override
    public void before(BasicBuilder builder, HttpRequest request, RequestTags tags) {
        URI uri = request.uri();
        if (!WRITES.contains(request.method())
                || (uri.getRawQuery() != null && uri.getRawQuery().contains("fieldManager="))) {
            return;
        }
        String query = (uri.getRawQuery() == null ? "" : uri.getRawQuery() + "&") + "fieldManager=" + NAME;
        builder.uri(URI.create(uri.getScheme() + "://" + uri.getRawAuthority() + uri.getRawPath() + "?" + query));
    }
}
