package app.talkide.controlplane.tenant;

/**
 * A tenant-environment's name, e.g. {@code mirek/dev}. Both parts are DNS-1123 labels and together they
 * form the namespace {@code {tenant}-{env}}, which must itself fit in a 63-character label. Validated on
 * construction, so an instance is always a usable Kubernetes name.
 */
public record TenantEnvironmentId(String tenant, String env) {

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

    /** {@code [a-z0-9]([-a-z0-9]*[a-z0-9])?}, at most 63 characters; a loop, as it runs on every token check. */
    private static boolean isLabel(String value) {
        int length = value.length();
        if (length == 0 || length > MAX_LABEL || value.charAt(0) == '-' || value.charAt(length - 1) == '-') {
            return false;
        }
        for (int i = 0; i < length; i++) {
            char c = value.charAt(i);
            if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-')) {
                return false;
            }
        }
        return true;
    }

    private static void requireLabel(String what, String value) {
        if (value == null || !isLabel(value)) {
            throw new InvalidTenantEnvironmentName(what
                    + " must be a DNS-1123 label: lower-case letters, digits and '-', starting and ending"
                    + " with a letter or digit, at most 63 characters");
        }
    }
}
