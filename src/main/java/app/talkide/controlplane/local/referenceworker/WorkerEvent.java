package app.talkide.controlplane.local.referenceworker;

import tools.jackson.databind.node.ObjectNode;

/**
 * One event of a session's stream. Ids are {@code {epoch}-{seq}}: ordered within an epoch, and a session
 * recreated after its files were lost starts a new epoch, so an id is never reused.
 */
record WorkerEvent(String id, String type, ObjectNode data) {

    String sseFrame() {
        return "id: " + id + "\nevent: " + type + "\ndata: " + HttpExchanges.JSON.writeValueAsString(data) + "\n\n";
    }
}
