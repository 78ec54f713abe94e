/**
 * Build Jobs in the tenant namespaces: one pure builder per kind ({@link GradleJobBuilder},
 * {@link ImageJobBuilder}) on a shared locked-down pod template, and the leader's dispatch, Job informer,
 * log follower and adoption of running Jobs. Only with the kubernetes runtime and builds enabled.
 */
@NullMarked
package app.talkide.controlplane.builds.job;

import org.jspecify.annotations.NullMarked;
