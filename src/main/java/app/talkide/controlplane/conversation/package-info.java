/** Conversations between a user and Mara: their records, who owns them, and where they run. */
@NullMarked
package app.talkide.controlplane.conversation;

import org.jspecify.annotations.NullMarked;
