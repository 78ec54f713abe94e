/** WorkerTokens: HS256 JWS minted per conversation, verified on every internal call. */
@NullMarked
package app.talkide.controlplane.token.worker;

import org.jspecify.annotations.NullMarked;
