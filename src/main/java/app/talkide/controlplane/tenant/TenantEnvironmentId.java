package app.talkide.controlplane.tenant;

import java.util.regex.Pattern;

/**
 * A tenant-environment's name, e.g. {@code mirek/dev}. Both parts are DNS-1123 labels and together they
 * form the namespace {@code {tenant}-{env}}, which must itself fit in a 63-character label. Validated on
 * construction, so an instance is always a usable Kubernetes name.
 */
public record TenantEnvironmentId(String tenant, String env) {

    private static final Pattern LABEL = Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?");
    private static final int MAX_LABEL = 63;

    public TenantEnvironmentId {
        requireLabel("tenant", tenant);
        requireLabel("env", env);
        if (tenant.length() + 1 + env.length() > MAX_LABEL) {
            throw new InvalidTenantEnvironmentName("'" + tenant + "-" + env + "' is longer than 63 characters");
        }
    }

    public static TenantEnvironmentId of(String tenant, String env) {
        return new TenantEnvironmentId(tenant, env);
    }

    /** The Kubernetes namespace of this tenant-environment. */
    public String namespace() {
        return tenant + "-" + env;
    }

    /** {@code tenant/env}, the form used in token subjects and key derivation. */
    public String path() {
        return tenant + "/" + env;
    }

    @Override
    public String toString() {
        return path();
    }

    private static void requireLabel(String what, String value) {
        if (value == null
                || value.isEmpty()
                || value.length() > MAX_LABEL
                || !LABEL.matcher(value).matches()) {
            throw new InvalidTenantEnvironmentName(what
                    + " must be a DNS-1123 label: lower-case letters, digits and '-', starting and ending"
                    + " with a letter or digit, at most 63 characters");
        }
    }
}
