package app.talkide.controlplane.bench.support;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;

/** Reads one HTTP/1.1 response off a keep-alive connection (Content-Length or chunked) and returns its status. */
public final class HttpResponses {

    private HttpResponses() {}

    public static int readAndDiscard(InputStream in) throws IOException {
        String statusLine = line(in);
        int status = Integer.parseInt(statusLine.substring(9, 12));
        long contentLength = -1;
        boolean chunked = false;
        for (String header = line(in); !header.isEmpty(); header = line(in)) {
            int colon = header.indexOf(':');
            String name = header.substring(0, colon).trim();
            String value = header.substring(colon + 1).trim();
            if (name.equalsIgnoreCase("Content-Length")) {
                contentLength = Long.parseLong(value);
            } else if (name.equalsIgnoreCase("Transfer-Encoding") && value.equalsIgnoreCase("chunked")) {
                chunked = true;
            }
        }
        if (chunked) {
            for (long size = Long.parseLong(line(in).split(";")[0].trim(), 16);
                    size > 0;
                    size = Long.parseLong(line(in).split(";")[0].trim(), 16)) {
                skip(in, size);
                line(in);
            }
            line(in);
        } else if (contentLength > 0) {
            skip(in, contentLength);
        }
        return status;
    }

    private static void skip(InputStream in, long bytes) throws IOException {
        long left = bytes;
        while (left > 0) {
            long skipped = in.skip(left);
            if (skipped <= 0) {
                if (in.read() < 0) {
                    throw new EOFException();
                }
                skipped = 1;
            }
            left -= skipped;
        }
    }

    private static String line(InputStream in) throws IOException {
        StringBuilder line = new StringBuilder(64);
        for (int c = in.read(); c != '\n'; c = in.read()) {
            if (c < 0) {
                throw new EOFException();
            }
            if (c != '\r') {
                line.append((char) c);
            }
        }
        return line.toString();
    }

    static String ascii(byte[] bytes) {
        return new String(bytes, StandardCharsets.US_ASCII);
    }
}
