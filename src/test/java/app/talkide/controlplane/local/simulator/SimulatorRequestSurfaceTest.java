package app.talkide.controlplane.local.simulator;

import static app.talkide.controlplane.local.simulator.SimulatorFixture.COUNT_TOKENS;
import static app.talkide.controlplane.local.simulator.SimulatorFixture.MESSAGES;
import static app.talkide.controlplane.local.simulator.SimulatorFixture.names;
import static org.assertj.core.api.Assertions.assertThat;

import app.talkide.controlplane.support.TestHttp;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.node.ObjectNode;

/**
 * The simulator takes everything today's API, engine and SDKs send: every content block type, system
 * as blocks and as mid-conversation turns, custom and server tools, {@code tool_choice}, thinking,
 * context management, output config, metadata, service tier, stop sequences, sampling and
 * {@code cache_control} wherever it may stand, plus fields it has never heard of. It refuses only
 * what the real API refuses for sure.
 */
class SimulatorRequestSurfaceTest {

    static final SimulatorFixture simulator = SimulatorFixture.unpaced();

    /** One request carrying every field and block type, shaped as the engine (2.1.x) and SDKs send them. */
    static final String EVERYTHING = """
            {
              "model": "claude-opus-4-6",
              "max_tokens": 32000,
              "stream": true,
              "temperature": 1,
              "top_p": 0.99,
              "top_k": 40,
              "stop_sequences": ["NEVER-SAID"],
              "metadata": {"user_id": "{\\"device_id\\":\\"abc\\",\\"session_id\\":\\"s-1\\"}"},
              "service_tier": "auto",
              "thinking": {"type": "adaptive", "display": "updates"},
              "context_management": {"edits": [{"type": "clear_thinking_20251015", "keep": "all"},
                                                {"type": "clear_tool_uses_20250919"}]},
              "output_config": {"effort": "medium", "format": null},
              "container": null,
              "mcp_servers": [{"type": "url", "url": "https://mcp.example.invalid/sse", "name": "example"}],
              "a_field_from_the_future": {"anything": [1, 2, 3]},
              "system": [
                {"type": "text", "text": "x-anthropic-billing-header: cc_version=2.1.0;"},
                {"type": "text", "text": "You are an agent.", "cache_control": {"type": "ephemeral", "ttl": "1h"}}
              ],
              "tools": [
                {"name": "Bash", "description": "Runs a command",
                 "input_schema": {"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object",
                                  "properties": {"command": {"type": "string"}}, "required": ["command"],
                                  "additionalProperties": false},
                 "cache_control": {"type": "ephemeral"}},
                {"type": "custom", "name": "Read", "input_schema": {"type": "object", "properties": {}},
                 "strict": true, "input_examples": [{}]},
                {"name": "Deferred", "input_schema": {"type": "object", "properties": {}}, "defer_loading": true},
                {"type": "web_search_20250305", "name": "web_search", "max_uses": 5},
                {"type": "web_fetch_20250910", "name": "web_fetch"},
                {"type": "code_execution_20250825", "name": "code_execution"},
                {"type": "text_editor_20250728", "name": "str_replace_based_edit_tool"},
                {"type": "bash_20250124", "name": "bash"},
                {"type": "tool_search_tool_regex_20251119", "name": "tool_search_tool_regex"},
                {"type": "mcp_toolset", "mcp_server_name": "example"}
              ],
              "tool_choice": {"type": "auto", "disable_parallel_tool_use": false},
              "messages": [
                {"role": "user", "content": [
                  {"type": "text", "text": "<system-reminder>context</system-reminder>"},
                  {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}},
                  {"type": "image", "source": {"type": "url", "url": "https://example.invalid/a.png"}},
                  {"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": "notes"},
                   "title": "notes", "citations": {"enabled": true}},
                  {"type": "document", "source": {"type": "base64", "media_type": "application/pdf", "data": "JVBERi0="}},
                  {"type": "search_result", "source": "https://example.invalid", "title": "r",
                   "content": [{"type": "text", "text": "found"}]},
                  {"type": "text", "text": "Look around", "cache_control": {"type": "ephemeral"}}
                ]},
                {"role": "assistant", "content": [
                  {"type": "thinking", "thinking": "Let me look.", "signature": "EqQBCkYIBxgCKkA="},
                  {"type": "redacted_thinking", "data": "EmwKAhgBEgy3va3pzix/LafPsn4a"},
                  {"type": "text", "text": "Looking.", "citations": [{"type": "char_location", "cited_text": "notes",
                   "document_index": 0, "start_char_index": 0, "end_char_index": 5}]},
                  {"type": "server_tool_use", "id": "srvtoolu_01", "name": "web_search", "input": {"query": "x"}},
                  {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_01",
                   "content": [{"type": "web_search_result", "url": "https://example.invalid", "title": "x",
                                "encrypted_content": "abc", "page_age": null}]},
                  {"type": "server_tool_use", "id": "srvtoolu_02", "name": "web_fetch", "input": {"url": "https://e.invalid"}},
                  {"type": "web_fetch_tool_result", "tool_use_id": "srvtoolu_02",
                   "content": {"type": "web_fetch_tool_error", "error_code": "url_not_accessible"}},
                  {"type": "server_tool_use", "id": "srvtoolu_03", "name": "code_execution", "input": {"code": "1"}},
                  {"type": "code_execution_tool_result", "tool_use_id": "srvtoolu_03",
                   "content": {"type": "code_execution_result", "stdout": "1", "stderr": "", "return_code": 0, "content": []}},
                  {"type": "mcp_tool_use", "id": "mcptoolu_01", "name": "lookup", "server_name": "example", "input": {}},
                  {"type": "mcp_tool_result", "tool_use_id": "mcptoolu_01", "is_error": false,
                   "content": [{"type": "text", "text": "ok"}]},
                  {"type": "tool_use", "id": "toolu_01", "name": "Bash", "input": {"command": "ls"}},
                  {"type": "tool_use", "id": "toolu_02", "name": "Read", "input": {}}
                ]},
                {"role": "user", "content": [
                  {"type": "tool_result", "tool_use_id": "toolu_01", "content": "a.txt"},
                  {"type": "tool_result", "tool_use_id": "toolu_02", "is_error": true, "content": [
                    {"type": "text", "text": "no such file"},
                    {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}}
                  ], "cache_control": {"type": "ephemeral", "ttl": "5m"}},
                  {"type": "container_upload", "file_id": "file_01"}
                ]},
                {"role": "system", "content": [{"type": "text", "text": "# Environment\\nworking directory: /tmp"}]},
                {"role": "assistant", "content": "All listed."},
                {"role": "user", "content": "Thanks, now summarize."}
              ]
            }
            """;

    @AfterAll
    static void stop() {
        simulator.close();
    }

    @Test
    void aRequestCarryingEveryFieldAndBlockTypeIsAnswered() {
        ObjectNode request = (ObjectNode) TestHttp.JSON.readTree(EVERYTHING);

        var events = simulator.stream(request);

        assertThat(names(events)).startsWith("message_start").endsWith("message_delta", "message_stop");
        assertThat(SimulatorFixture.text(events)).contains("Simulated reply to “Thanks, now summarize.”");
        request.put("stream", false);
        TestHttp.Response message = simulator.post(MESSAGES, request);
        assertThat(message.status()).as(message.body()).isEqualTo(200);
        TestHttp.Response count = simulator.post(COUNT_TOKENS, request);
        assertThat(count.status()).as(count.body()).isEqualTo(200);
        assertThat(count.json().path("input_tokens").asInt()).isPositive();
    }

    @Test
    void systemAsAPlainStringAndThinkingEnabledAreAccepted() {
        ObjectNode request = SimulatorFixture.request("hi").put("system", "You are terse.");
        request.putObject("thinking").put("type", "enabled").put("budget_tokens", 2048);
        request.putObject("tool_choice").put("type", "none");

        TestHttp.Response response = simulator.post(MESSAGES, request);

        assertThat(response.status()).as(response.body()).isEqualTo(200);
    }

    @Test
    void wrongTypesOfOptionalFieldsAreRefusedAsTheRealApiRefusesThem() {
        assertRefused(
                SimulatorFixture.request("hi").put("temperature", "hot"),
                "temperature: Input should be a valid number");
        assertRefused(
                SimulatorFixture.request("hi").put("temperature", 1.5), "temperature: Input should be between 0 and 1");
        assertRefused(SimulatorFixture.request("hi").put("top_k", 0.5), "top_k: Input should be a valid integer");
        assertRefused(
                SimulatorFixture.request("hi").put("metadata", "me"), "metadata: Input should be a valid dictionary");
        assertRefused(
                SimulatorFixture.request("hi").put("system", 7), "system: Input should be a valid string or list");
        assertRefused(
                SimulatorFixture.request("hi").put("tool_choice", "auto"),
                "tool_choice: Input should be a valid dictionary");
        ObjectNode thinking = SimulatorFixture.request("hi");
        thinking.putObject("thinking").put("type", "enabled");
        assertRefused(thinking, "thinking.enabled.budget_tokens: Field required");
        thinking.withObject("thinking").put("budget_tokens", 100);
        assertRefused(thinking, "thinking.enabled.budget_tokens: Input should be greater than or equal to 1024");
        ObjectNode unnamed = SimulatorFixture.request("hi");
        unnamed.putArray("tools").addObject().put("description", "no name");
        assertRefused(unnamed, "tools.0.name: Field required");
    }

    private static void assertRefused(ObjectNode request, String message) {
        TestHttp.Response response = simulator.post(MESSAGES, request);
        assertThat(response.status()).as(response.body()).isEqualTo(400);
        assertThat(response.json().path("error").path("type").asString()).isEqualTo("invalid_request_error");
        assertThat(response.json().path("error").path("message").asString()).isEqualTo(message);
    }
}
