package app.talkide.controlplane.gateway.upstream;

import java.io.EOFException;
import java.io.IOException;
import java.net.ProtocolException;

/**
 * A chunked body (RFC 9112 §7.1), decoded as it arrives: each read returns data of the current chunk
 * as soon as any is there, so an event stream's events pass without waiting for the chunk's end.
 * Extensions are ignored, trailer fields are read and dropped; a malformed size line ends the call.
 */
final class ChunkedBody extends ResponseBody {

    private static final int MAX_LINE = 4 * 1024;
    private static final int MAX_TRAILERS = 64 * 1024;

    private long chunkLeft;
    private boolean afterChunk;
    private boolean done;

    ChunkedBody(UpstreamConnection connection, UpstreamConnections pool, boolean reusable) {
        super(connection, pool, reusable);
    }

    @Override
    int readBody(byte[] into, int offset, int length) throws IOException {
        if (done) {
            return -1;
        }
        if (chunkLeft == 0) {
            if (afterChunk) {
                expectLineEnd();
            }
            chunkLeft = chunkSize();
            afterChunk = true;
            if (chunkLeft == 0) {
                skipTrailers();
                done = true;
                return -1;
            }
        }
        int n = connection.read(into, offset, (int) Math.min(length, chunkLeft));
        if (n < 0) {
            throw new EOFException("the upstream closed the connection inside a chunk");
        }
        chunkLeft -= n;
        return n;
    }

    private long chunkSize() throws IOException {
        long size = 0;
        int digits = 0;
        int b;
        while (isHex(b = connection.readHeadByte())) {
            if (++digits > 15) {
                throw new ProtocolException("the upstream sent a chunk size out of range");
            }
            size = size * 16 + Character.digit(b, 16);
        }
        if (digits == 0) {
            throw new ProtocolException("the upstream sent a malformed chunk size");
        }
        // Chunk extensions (";name=value") mean nothing here: skip them to the line's end.
        int skipped = 0;
        while (b != '\n') {
            if (b == '\r') {
                if (connection.readHeadByte() != '\n') {
                    throw new ProtocolException("the upstream sent a bare CR in a chunk size line");
                }
                break;
            }
            if (++skipped > MAX_LINE || b == 0) {
                throw new ProtocolException("the upstream sent a malformed chunk size line");
            }
            b = connection.readHeadByte();
        }
        return size;
    }

    private void expectLineEnd() throws IOException {
        int b = connection.readHeadByte();
        if (b == '\r') {
            b = connection.readHeadByte();
        }
        if (b != '\n') {
            throw new ProtocolException("the upstream's chunk data did not end where its size said");
        }
    }

    private void skipTrailers() throws IOException {
        int total = 0;
        int lineLength = 0;
        while (true) {
            int b = connection.readHeadByte();
            if (++total > MAX_TRAILERS) {
                throw new ProtocolException("the upstream's trailer section is too long");
            }
            if (b == '\n') {
                if (lineLength == 0) {
                    return;
                }
                lineLength = 0;
            } else if (b != '\r') {
                lineLength++;
            }
        }
    }

    private static boolean isHex(int b) {
        return (b >= '0' && b <= '9') || (b >= 'a' && b <= 'f') || (b >= 'A' && b <= 'F');
    }
}
