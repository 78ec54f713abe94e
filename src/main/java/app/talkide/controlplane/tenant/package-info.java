/** Tenant-environments: the unit a worker, its namespace, its tokens and its conversations belong to. */
@NullMarked
package app.talkide.controlplane.tenant;

import org.jspecify.annotations.NullMarked;
