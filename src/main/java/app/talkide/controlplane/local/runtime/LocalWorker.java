package app.talkide.controlplane.local.runtime;

import java.net.URI;

/** One embedded worker of local mode: the Java reference worker or the Node worker as a child process. */
public interface LocalWorker {

    URI baseUrl();

    int port();

    /** Stops it as a crash would: running turns die, streams are cut, nothing more is written. */
    void stop();

    /** Which worker this is, for the log and the console. */
    String description();
}
