/** Memberships: which users may use which tenant-environments, and the admin API that grants them. */
@NullMarked
package app.talkide.controlplane.membership;

import org.jspecify.annotations.NullMarked;
