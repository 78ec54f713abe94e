package app.talkide.controlplane.budget.account;

import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.TransactionStatus;
import org.springframework.transaction.support.SimpleTransactionStatus;

/**
 * A transaction manager for unit tests of the budget's logic against stand-in repositories: runs the
 * callback and counts what ended in a commit and what in a rollback (the callback marked it rollback-only
 * or threw), so a test can tell a refused grant from a granted one.
 */
public final class StandInTransactions implements PlatformTransactionManager {

    public int commits;
    public int rollbacks;

    @Override
    public TransactionStatus getTransaction(TransactionDefinition definition) {
        return new SimpleTransactionStatus();
    }

    @Override
    public void commit(TransactionStatus status) {
        if (status.isRollbackOnly()) {
            rollbacks++;
        } else {
            commits++;
        }
    }

    @Override
    public void rollback(TransactionStatus status) {
        rollbacks++;
    }
}
