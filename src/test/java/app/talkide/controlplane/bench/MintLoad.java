package app.talkide.controlplane.bench;

import app.talkide.controlplane.bench.support.ClosedLoopLoad;
import java.net.URI;
import java.time.Duration;

/**
 * Load on the mint endpoint over loopback: 16 clients (closed loop, keep-alive), after a warm-up.
 * The baseline, in the same run, is an endpoint that does no token work at all (the liveness probe),
 * so the ratio shows what minting costs on top of the web stack. The clients run on virtual threads;
 * a last run repeats the mint with one OS thread per client, to show how much of the tail is the
 * kernel scheduling 16 client threads on the server's two cores.
 *
 * <p>Arguments: base URL, identity token, conversation id, [clients], [seconds].
 */
public final class MintLoad {

    public static void main(String[] args) throws Exception {
        URI base = URI.create(args[0]);
        String identity = args[1];
        String conversation = args[2];
        int clients = args.length > 3 ? Integer.parseInt(args[3]) : 16;
        Duration measure = Duration.ofSeconds(args.length > 4 ? Long.parseLong(args[4]) : 20);
        Duration warmup = Duration.ofSeconds(10);

        ClosedLoopLoad load = new ClosedLoopLoad(base, clients);
        byte[] baseline = ClosedLoopLoad.request("GET", base, "/actuator/health/liveness", null);
        byte[] mint = ClosedLoopLoad.request(
                "POST",
                base,
                "/api/v1/worker-gateway/token/mint",
                "{\"conversationId\":\"" + conversation + "\"}",
                "Authorization",
                "Bearer " + identity,
                "Content-Type",
                "application/json");

        ClosedLoopLoad.Result health = load.run(i -> baseline, warmup, measure);
        ClosedLoopLoad.Result minted = load.run(i -> mint, warmup, measure);
        ClosedLoopLoad.Result mintedByOsThreads =
                new ClosedLoopLoad(base, clients, Thread.ofPlatform()).run(i -> mint, warmup, measure);

        System.out.printf(
                "clients: %d, measured %d s each after %d s warm-up%n",
                clients, measure.toSeconds(), warmup.toSeconds());
        System.out.println("baseline GET /actuator/health/liveness  " + health);
        System.out.println("POST /api/v1/worker-gateway/token/mint  " + minted);
        System.out.println("the same, one OS thread per client      " + mintedByOsThreads);
        System.out.printf(
                "mint throughput / baseline throughput: %.2f%n",
                minted.requestsPerSecond() / health.requestsPerSecond());
        if (minted.errors() + mintedByOsThreads.errors() > 0) {
            System.out.println("WARNING: non-2xx answers or broken connections during the mint run");
        }
    }
}
