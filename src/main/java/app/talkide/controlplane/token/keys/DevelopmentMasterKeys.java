package app.talkide.controlplane.token.keys;

import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.List;
import java.util.Properties;

/**
 * Local mode's master key: generated on first start and kept under the data directory, so tokens and
 * the embedded worker's command key stay valid across restarts. Never used in production.
 */
final class DevelopmentMasterKeys {

    static final String DEVELOPMENT_KID = "dev-1";

    private DevelopmentMasterKeys() {}

    static MasterKeyRing loadOrCreate(Path file) {
        try {
            if (!Files.exists(file)) {
                create(file);
            }
            Properties properties = new Properties();
            try (Reader reader = Files.newBufferedReader(file)) {
                properties.load(reader);
            }
            String active = properties.getProperty("active", DEVELOPMENT_KID);
            List<String> entries = properties.stringPropertyNames().stream()
                    .filter(name -> name.startsWith("key."))
                    .map(name -> name.substring(4) + ":" + properties.getProperty(name))
                    .toList();
            return MasterKeyRing.parse(entries, active);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read or create development master keys at " + file, e);
        }
    }

    private static void create(Path file) throws IOException {
        Files.createDirectories(file.getParent());
        byte[] secret = new byte[MasterKey.MIN_BYTES];
        new SecureRandom().nextBytes(secret);
        Properties properties = new Properties();
        properties.setProperty("active", DEVELOPMENT_KID);
        properties.setProperty(
                "key." + DEVELOPMENT_KID,
                Base64.getUrlEncoder().withoutPadding().encodeToString(secret));
        Path temporary = file.resolveSibling(file.getFileName() + ".tmp");
        try (Writer writer = Files.newBufferedWriter(temporary)) {
            properties.store(writer, "TalkIDE development master keys - local mode only, never commit or share");
        }
        restrictToOwner(temporary);
        Files.move(temporary, file);
    }

    private static void restrictToOwner(Path file) throws IOException {
        try {
            Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
        } catch (UnsupportedOperationException notPosix) {
            // Windows: the file inherits the user profile's ACLs, which is the closest equivalent.
        }
    }
}
