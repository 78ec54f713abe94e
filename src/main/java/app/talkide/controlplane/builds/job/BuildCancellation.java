package app.talkide.controlplane.builds.job;

import app.talkide.controlplane.builds.BuildCancelled;
import org.springframework.boot.autoconfigure.condition.ConditionalOnExpression;
import org.springframework.stereotype.Component;
import org.springframework.transaction.event.TransactionalEventListener;

/**
 * Deletes a cancelled build's Job from whichever replica took the cancel: waiting for the leader would
 * keep the build's pod running for a sweep. Should the delete fail, the leader's sweep deletes Jobs of
 * cancelled builds.
 */
@Component
@ConditionalOnExpression("'${talkide.worker.runtime:local}' == 'kubernetes' and ${talkide.builds.enabled:false}")
class BuildCancellation {

    private final BuildJobWatch watch;

    BuildCancellation(BuildJobWatch watch) {
        this.watch = watch;
    }

    @TransactionalEventListener(fallbackExecution = true)
    void on(BuildCancelled cancelled) {
        if (cancelled.jobName() != null) {
            watch.delete(cancelled.tenantEnvironment(), cancelled.jobName());
        }
    }
}
