package app.talkide.controlplane.gateway.upstream;

import app.talkide.controlplane.gateway.AnthropicUpstream;
import java.net.URI;
import org.jspecify.annotations.Nullable;

/**
 * The absolute URI of one call for the library clients: the upstream's scheme and authority, its path
 * prefix and the call's escaped target ({@link RequestFields#target}). The last upstream's parts are kept,
 * since the active upstream is settled at start-up.
 */
final class UpstreamTarget {

    private volatile @Nullable Known last;

    URI of(AnthropicUpstream upstream, String path, @Nullable String query) {
        Known known = last;
        if (known == null || known.upstream != upstream) {
            UpstreamOrigin origin = UpstreamOrigin.of(upstream.baseUrl()); // refuses what is not http(s)
            URI base = upstream.baseUrl();
            known = new Known(upstream, base.getScheme() + "://" + base.getRawAuthority(), origin.pathPrefix());
            last = known;
        }
        return URI.create(known.authority + RequestFields.target(known.pathPrefix, path, query));
    }

    private record Known(AnthropicUpstream upstream, String authority, String pathPrefix) {}
}
