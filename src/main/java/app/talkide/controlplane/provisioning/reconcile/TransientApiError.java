package app.talkide.controlplane.provisioning.reconcile;

import io.fabric8.kubernetes.client.KubernetesClientException;

/**
 * Which API errors go away by themselves: a conflict (someone wrote between our read and our write), 429
 * (API priority and fairness throttling), 5xx (API server or etcd trouble, a webhook timing out) and no
 * answer at all (code 0: connection reset, timeout). Those are retried soon with backoff; anything else (403,
 * 422, 404 on a missing kind) needs a person and waits for a change or the next resync.
 */
final class TransientApiError {

    private TransientApiError() {}

    static boolean is(KubernetesClientException e) {
        int code = e.getCode();
        return code == 0 || code == 409 || code == 429 || code >= 500;
    }
}
