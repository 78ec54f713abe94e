/**
 * The worker-token seam: long-lived identity tokens, the mint endpoint, short-lived WorkerTokens and
 * their validation on {@code /api/internal/**}, and the signed commands the control plane sends to
 * workers. This package is the feature's API; the subpackages are its insides.
 */
@NullMarked
package app.talkide.controlplane.token;

import org.jspecify.annotations.NullMarked;
