package app.talkide.controlplane.budget.lease;

import app.talkide.controlplane.budget.account.BudgetRow;
import app.talkide.controlplane.budget.account.LimitWindows;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;

/**
 * What this replica holds of one user's budget, and what of it its calls in flight use. The same
 * amounts are counted in the user's database row, so taking from here needs no statement. State is
 * guarded by {@code this}; {@link #changing} serialises the database statements that change the lease
 * (top-up, return), which may block, so they never run under the monitor.
 */
public final class LocalLease {

    final String userId;
    final ReentrantLock changing = new ReentrantLock();
    /** Set while a top-up ahead of need runs, so calls that notice the same low water start one, not many. */
    final AtomicBoolean refilling = new AtomicBoolean();

    private long amount;
    private long held;
    private int slots;
    private int slotsUsed;
    private Instant minute = Instant.EPOCH;
    private int permitsLeft;
    private Instant hour = Instant.EPOCH;
    private long hourTokensAtGrant;
    private long tokensSinceGrant;
    private long tokensPerHour = Long.MAX_VALUE;
    private Instant lastUsed;
    // As the lease row's expires_at: past it, other replicas may give the lease back, so it is not used.
    private Instant validUntil = Instant.EPOCH;
    private boolean closed;
    private boolean aheadRefused;
    // Revoked (settings changed, or recalled for a user near a limit): admits nothing more from memory;
    // its calls still settle through it, and it goes back as soon as none uses it.
    private boolean revoked;

    LocalLease(String userId, Instant now) {
        this.userId = userId;
        this.lastUsed = now;
    }

    /** Holds {@code money}, a slot and a request for a new call, if the lease covers all three. */
    synchronized boolean take(long money, LimitWindows now) {
        if (closed
                || revoked
                || !now.now().isBefore(validUntil)
                || money > amount - held
                || slotsUsed >= slots
                || !minute.equals(now.minute())
                || permitsLeft < 1) {
            return false;
        }
        // Tokens per hour: what the row said at the last top-up plus what settled here since (bounded drift).
        if (hour.equals(now.hour()) && hourTokensAtGrant + tokensSinceGrant >= tokensPerHour) {
            return false;
        }
        held += money;
        slotsUsed++;
        permitsLeft--;
        lastUsed = now.now();
        return true;
    }

    /** Holds {@code delta} more for a running call, if the lease has it free. */
    synchronized boolean grow(long delta, Instant now) {
        if (closed || revoked || !now.isBefore(validUntil) || delta > amount - held) {
            return false;
        }
        held += delta;
        lastUsed = now;
        return true;
    }

    /**
     * A call that held {@code hold} ended costing {@code cost}: the lease shrinks by what was spent (at
     * most what the call held) and the rest, with the slot, is free again; a revoked lease gives back
     * the whole hold instead, since it admits nothing more. Returns the shrink, which the settlement
     * takes off the lease and the user's reserved amount in the database.
     */
    synchronized long settle(long hold, long cost, long tokens, Instant now) {
        long spent = revoked ? hold : Math.min(cost, hold);
        amount -= spent;
        held -= hold;
        slotsUsed--;
        tokensSinceGrant += tokens;
        lastUsed = now;
        return spent;
    }

    /** Adds what a top-up granted (a new minute replaces the permits of the old one). */
    synchronized void granted(LeaseRepository.Grant grant, LimitWindows now, Instant expires) {
        validUntil = expires;
        aheadRefused = false;
        amount += grant.micros();
        slots += grant.slots();
        if (!minute.equals(now.minute())) {
            minute = now.minute();
            permitsLeft = 0;
        }
        permitsLeft += grant.permits();
        hour = now.hour();
        hourTokensAtGrant = grant.hourTokens();
        tokensSinceGrant = 0;
        tokensPerHour = grant.tokensPerHour();
        lastUsed = now.now();
    }

    /**
     * Holds for a running call what the lease has free of {@code delta}, at most all of it; returns how
     * much. The rest is granted from the budget ({@link #grantedAndHeld}) or this is given back
     * ({@link #unhold}): the call is not refused money its own replica's lease has free.
     */
    synchronized long holdFree(long delta, Instant now) {
        if (closed || revoked || !now.isBefore(validUntil)) {
            return 0;
        }
        long part = Math.min(delta, Math.max(0, amount - held));
        held += part;
        return part;
    }

    /** Gives back a hold of {@link #holdFree} whose rest the budget refused. */
    synchronized void unhold(long part) {
        held -= part;
    }

    /** Adds {@code delta} granted for one running call and holds it for that call at once. */
    synchronized void grantedAndHeld(long delta, Instant expires) {
        validUntil = expires;
        amount += delta;
        held += delta;
    }

    /**
     * What to top up before the lease runs out, while calls keep coming: requests when a quarter of
     * {@code permitsAhead} or fewer are left of this minute's, money when less than a quarter of
     * {@code moneyAhead} is free. Nothing when the lease covers the next calls or is no longer in use.
     */
    synchronized Needs runningLow(int permitsAhead, long moneyAhead, LimitWindows now) {
        if (closed || revoked || aheadRefused || !minute.equals(now.minute())) {
            // Refused ahead (near a limit): the calls themselves ask from now on. A new minute's
            // permits come with its first call.
            return new Needs(0, false, false, amount);
        }
        long money = amount - held < moneyAhead / 4 ? moneyAhead : 0;
        return new Needs(money, false, permitsLeft <= permitsAhead / 4, amount);
    }

    /** The budget refused a top-up ahead of need: none is tried again until a call's own top-up succeeds. */
    synchronized void refusedAhead() {
        aheadRefused = true;
    }

    /** What is needed from the database before {@link #take} can succeed. */
    synchronized Needs needs(long money, LimitWindows now) {
        boolean sameMinute = minute.equals(now.minute());
        return new Needs(
                Math.max(0, money - (amount - held)), slotsUsed >= slots, !sameMinute || permitsLeft < 1, amount);
    }

    /** Closes the lease if no call uses it and it was idle since {@code idleSince}; returns unused permits. */
    synchronized int closeIfIdle(Instant idleSince, Instant now) {
        if (closed || held > 0 || slotsUsed > 0 || lastUsed.isAfter(idleSince)) {
            return -1;
        }
        closed = true;
        return minute.equals(now.truncatedTo(java.time.temporal.ChronoUnit.MINUTES)) ? permitsLeft : 0;
    }

    /**
     * Revokes the lease: it shrinks to what its calls hold and admits nothing more from memory, so the
     * next call or extension is decided in the database against the limits as they are now. Returns
     * {money, slots, permits} given up (permits only of the current minute, else 0).
     */
    synchronized long[] revoke(Instant minuteNow) {
        long[] unused = {amount - held, slots - slotsUsed, minute.equals(minuteNow) ? permitsLeft : 0};
        amount = held;
        slots = slotsUsed;
        permitsLeft = 0;
        revoked = true;
        return unused;
    }

    synchronized boolean revoked() {
        return revoked;
    }

    /** The lease row's expiry was moved to {@code expires}. */
    synchronized void renewed(Instant expires) {
        validUntil = expires;
    }

    /** The database no longer has this lease (it expired): calls holding it settle without it. */
    synchronized void lost() {
        closed = true;
    }

    /** A copy of {@code row} without what this lease holds unused (what no call of it holds). */
    synchronized BudgetRow withoutUnused(BudgetRow row) {
        if (closed) {
            return row;
        }
        return new BudgetRow(
                row.userId(),
                row.limitMicros(),
                row.enforcement(),
                row.maxConcurrent(),
                row.requestsPerMinute(),
                row.tokensPerHour(),
                row.periodStart(),
                row.spentMicros(),
                Math.max(0, row.reservedMicros() - (amount - held)),
                Math.max(0, row.inFlight() - (slots - slotsUsed)),
                row.minuteStart(),
                row.minuteRequests(),
                row.hourStart(),
                row.hourTokens());
    }

    synchronized boolean closed() {
        return closed;
    }

    synchronized boolean inUse() {
        return held > 0 || slotsUsed > 0;
    }

    synchronized Instant minute() {
        return minute;
    }

    /**
     * @param money what the lease lacks to cover the call
     * @param slot whether it lacks a free slot
     * @param permit whether it lacks a request of this minute
     * @param amount what it holds now
     */
    record Needs(long money, boolean slot, boolean permit, long amount) {
        boolean nothing() {
            return money == 0 && !slot && !permit;
        }
    }
}
