package app.talkide.controlplane.provisioning.leader;

/** This replica started or stopped leading; published on every change, in order. */
public record LeadershipChanged(boolean leading, String identity) {}
