package app.talkide.controlplane.token.keys;

import app.talkide.controlplane.system.ControlPlaneProperties;
import app.talkide.controlplane.token.TokenProperties;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** Builds the master key ring from configuration, or in local mode from the development key file. */
@Configuration(proxyBeanMethods = false)
class MasterKeyConfiguration {

    private static final Logger log = LoggerFactory.getLogger(MasterKeyConfiguration.class);

    @Bean
    MasterKeyRing masterKeyRing(TokenProperties tokens, ControlPlaneProperties controlPlane) {
        TokenProperties.Keys keys = tokens.keys();
        if (!keys.masterKeys().isEmpty()) {
            MasterKeyRing ring = MasterKeyRing.parse(keys.masterKeys(), keys.activeKid());
            log.info("Master keys loaded: {} kid(s), active kid {}", ring.all().size(), ring.activeKid());
            return ring;
        }
        if (!controlPlane.isLocal()) {
            // ProductionConfigurationCheck normally stops us earlier; this keeps "unset means safe" for any other path.
            throw new InvalidMasterKeys("no master keys are configured (TALKIDE_MASTER_KEYS)");
        }
        var file = controlPlane.dataDir().resolve("keys").resolve("master-keys.properties");
        MasterKeyRing ring = DevelopmentMasterKeys.loadOrCreate(file);
        log.info(
                "Using development master keys from {} (local mode only)",
                file.toAbsolutePath().normalize());
        return ring;
    }
}
