/** Prices per model family in integer micro-dollars, and the cost of a call's tokens. */
@NullMarked
package app.talkide.controlplane.gateway.pricing;

import org.jspecify.annotations.NullMarked;
