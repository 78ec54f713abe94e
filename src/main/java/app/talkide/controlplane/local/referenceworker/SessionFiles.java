package app.talkide.controlplane.local.referenceworker;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.stream.Stream;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * A session on disk under {@code $CLAUDE_CONFIG_DIR/projects/{conversationId}/}, like the Agent SDK keeps
 * it: {@code session.json} (who and which epoch), {@code events.jsonl} (the stream, for resume after a
 * restart) and {@code transcript.jsonl} (the model conversation). Append-only and flushed per line; a
 * line torn by a crash is ignored on load.
 */
final class SessionFiles implements AutoCloseable {

    private final Path dir;
    private BufferedWriter events;
    private BufferedWriter transcript;

    private SessionFiles(Path dir) {
        this.dir = dir;
    }

    static Path directory(Path configDir, UUID conversationId) {
        return configDir.resolve("projects").resolve(conversationId.toString());
    }

    static boolean exist(Path configDir, UUID conversationId) {
        return Files.isRegularFile(directory(configDir, conversationId).resolve("session.json"));
    }

    static SessionFiles create(Path configDir, UUID conversationId, ObjectNode header) {
        Path dir = directory(configDir, conversationId);
        try {
            Files.createDirectories(dir);
            Path temporary = dir.resolve("session.json.tmp");
            Files.write(temporary, HttpExchanges.JSON.writeValueAsBytes(header));
            Files.move(temporary, dir.resolve("session.json"), java.nio.file.StandardCopyOption.ATOMIC_MOVE);
            Files.deleteIfExists(dir.resolve("events.jsonl"));
            Files.deleteIfExists(dir.resolve("transcript.jsonl"));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create session files in " + dir, e);
        }
        return new SessionFiles(dir).open();
    }

    static SessionFiles existing(Path configDir, UUID conversationId) {
        return new SessionFiles(directory(configDir, conversationId)).open();
    }

    ObjectNode header() {
        return (ObjectNode)
                HttpExchanges.JSON.readTree(dir.resolve("session.json").toFile());
    }

    List<ObjectNode> readEvents() {
        return readLines("events.jsonl");
    }

    List<ObjectNode> readTranscript() {
        return readLines("transcript.jsonl");
    }

    void appendEvent(WorkerEvent event) {
        ObjectNode line =
                HttpExchanges.JSON.createObjectNode().put("id", event.id()).put("type", event.type());
        line.set("data", event.data());
        write(events, line);
    }

    void appendTranscript(JsonNode message) {
        write(transcript, message);
    }

    void delete() {
        close();
        try (Stream<Path> files = Files.list(dir)) {
            for (Path file : files.toList()) {
                Files.deleteIfExists(file);
            }
            Files.deleteIfExists(dir);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot delete session files in " + dir, e);
        }
    }

    @Override
    public synchronized void close() {
        try {
            if (events != null) {
                events.close();
            }
            if (transcript != null) {
                transcript.close();
            }
        } catch (IOException ignored) {
            // Closing after a crash-like halt: whatever was flushed is what a restart finds.
        }
    }

    private SessionFiles open() {
        try {
            events = Files.newBufferedWriter(
                    dir.resolve("events.jsonl"),
                    StandardCharsets.UTF_8,
                    StandardOpenOption.CREATE,
                    StandardOpenOption.APPEND);
            transcript = Files.newBufferedWriter(
                    dir.resolve("transcript.jsonl"),
                    StandardCharsets.UTF_8,
                    StandardOpenOption.CREATE,
                    StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open session files in " + dir, e);
        }
        return this;
    }

    private synchronized void write(BufferedWriter writer, JsonNode line) {
        try {
            writer.write(HttpExchanges.JSON.writeValueAsString(line));
            writer.newLine();
            writer.flush();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write session file in " + dir, e);
        }
    }

    private List<ObjectNode> readLines(String name) {
        Path file = dir.resolve(name);
        List<ObjectNode> lines = new ArrayList<>();
        if (!Files.exists(file)) {
            return lines;
        }
        try {
            for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
                if (line.isBlank()) {
                    continue;
                }
                try {
                    lines.add((ObjectNode) HttpExchanges.JSON.readTree(line));
                } catch (JacksonException | ClassCastException torn) {
                    // The last line of a worker that died mid-write; everything before it is intact.
                    break;
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file, e);
        }
        return lines;
    }
}
