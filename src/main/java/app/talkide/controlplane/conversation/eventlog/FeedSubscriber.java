package app.talkide.controlplane.conversation.eventlog;

/** Someone on this replica who follows a conversation's feed and pulls from it at its own pace. */
public interface FeedSubscriber {

    /**
     * The feed has new events, up to {@code head}. Called on the publisher's thread: schedule the work, do
     * not do it here.
     */
    void wake(long head);
}
