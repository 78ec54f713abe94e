/** The security chains for worker-facing paths: WorkerToken validation on {@code /api/internal/**}, and the mint path. */
@NullMarked
package app.talkide.controlplane.token.security;

import org.jspecify.annotations.NullMarked;
