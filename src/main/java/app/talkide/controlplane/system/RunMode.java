package app.talkide.controlplane.system;

/** The two ways the control plane runs; see {@link ControlPlaneProperties#mode()}. */
public enum RunMode {
    LOCAL,
    PRODUCTION
}
