/**
 * Benchmarks and load harnesses, run by {@code scripts/bench.sh}, never by Surefire. Each prints its
 * figures together with a baseline measured in the same run, because this machine is shared and noisy.
 */
package app.talkide.controlplane.bench;
