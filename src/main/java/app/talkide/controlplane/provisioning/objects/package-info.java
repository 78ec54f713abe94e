/** Pure builders of the Kubernetes objects a tenant-environment owns: one class per kind or small group. */
@NullMarked
package app.talkide.controlplane.provisioning.objects;

import org.jspecify.annotations.NullMarked;
