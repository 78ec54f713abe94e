package app.talkide.controlplane.worker.stream;

import org.jspecify.annotations.Nullable;

/** A claim this replica holds on a worker stream: where to resume, and the demand it has seen. */
record StreamLease(@Nullable String lastEventId, long demand) {}
