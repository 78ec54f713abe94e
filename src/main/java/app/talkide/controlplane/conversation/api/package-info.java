/** The browser API of conversations: start, list and read them, send messages, interrupt, read events. */
@NullMarked
package app.talkide.controlplane.conversation.api;

import org.jspecify.annotations.NullMarked;
