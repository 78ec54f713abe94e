/** {@code POST /api/v1/worker-gateway/token/mint}: a worker trades its identity token for a WorkerToken. */
@NullMarked
package app.talkide.controlplane.token.mint;

import org.jspecify.annotations.NullMarked;
