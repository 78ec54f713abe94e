package app.talkide.controlplane.worker.stream;

import static org.assertj.core.api.Assertions.assertThat;

import app.talkide.controlplane.conversation.NewConversationEvent;
import app.talkide.controlplane.workercontract.SseEventReader.SseEvent;
import org.junit.jupiter.api.Test;

class WorkerEventMapperTest {

    final WorkerEventMapper mapper = new WorkerEventMapper();

    @Test
    void contractEventKeepsTypeAndDataAndUsesTheWorkerIdForDeDuplication() {
        NewConversationEvent event = mapper.map(
                        new SseEvent("e1-7", "text.delta", "{ \"turnId\": \"t\", \"text\": \"hi\" }"))
                .event()
                .orElseThrow();

        assertThat(event.type()).isEqualTo("text.delta");
        assertThat(event.data()).isEqualTo("{\"turnId\":\"t\",\"text\":\"hi\"}");
        assertThat(event.sourceEventId()).isEqualTo("e1-7");
    }

    @Test
    void unknownTypesMissingIdsAndMalformedDataAreDroppedWithAReason() {
        assertThat(mapper.map(new SseEvent("e1-1", "tool.exploded", "{}")).dropped())
                .contains(WorkerEventMapper.Drop.UNKNOWN_TYPE);
        assertThat(mapper.map(new SseEvent(null, "text.delta", "{\"turnId\":\"t\",\"text\":\"x\"}"))
                        .dropped())
                .contains(WorkerEventMapper.Drop.NO_ID);
        assertThat(mapper.map(new SseEvent("e1-2", "text.delta", "not json")).dropped())
                .contains(WorkerEventMapper.Drop.INVALID_DATA);
        assertThat(mapper.map(new SseEvent("e1-3", "text.delta", "{\"turnId\":\"t\"}"))
                        .dropped())
                .contains(WorkerEventMapper.Drop.INVALID_DATA);
        assertThat(mapper.map(new SseEvent("e1-4", "turn.failed", "{\"turnId\":\"t\",\"error\":{}}"))
                        .dropped())
                .contains(WorkerEventMapper.Drop.INVALID_DATA);
        assertThat(mapper.map(new SseEvent("e1-5", "session.status", "[1,2]")).dropped())
                .contains(WorkerEventMapper.Drop.INVALID_DATA);
    }
}
