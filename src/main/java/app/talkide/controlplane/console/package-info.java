/** The browser console: static HTML, CSS and JavaScript modules served from the jar, and its page routes. */
@NullMarked
package app.talkide.controlplane.console;

import org.jspecify.annotations.NullMarked;
