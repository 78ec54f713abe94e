package app.talkide.controlplane.provisioning.desired;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.List;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * An IP block in CIDR notation, parsed without name lookups. Knows the link-local blocks, which hold the
 * cloud metadata address (169.254.169.254) and must never be reachable from a worker.
 */
public record Cidr(byte[] address, int prefix) {

    public static final List<String> LINK_LOCAL = List.of("169.254.0.0/16", "fe80::/10");

    /** Digits, hex and separators only: {@link InetAddress#getByName} then never resolves a host name. */
    private static final Pattern LITERAL = Pattern.compile("[0-9a-fA-F:.]{2,45}/[0-9]{1,3}");

    /** The block, or {@code null} if {@code text} is not a valid CIDR with its host bits zero. */
    public static @Nullable Cidr parse(String text) {
        if (!LITERAL.matcher(text).matches()) {
            return null;
        }
        String[] parts = text.split("/");
        boolean v6 = parts[0].contains(":");
        if (!v6 && !parts[0].matches("[0-9]{1,3}(\\.[0-9]{1,3}){3}")) {
            return null;
        }
        byte[] address;
        try {
            address = InetAddress.getByName(parts[0]).getAddress();
        } catch (UnknownHostException e) {
            return null;
        }
        int prefix = Integer.parseInt(parts[1]);
        if ((v6 ? 16 : 4) != address.length || prefix > address.length * 8) {
            return null;
        }
        Cidr cidr = new Cidr(address, prefix);
        for (int bit = prefix; bit < address.length * 8; bit++) {
            if (cidr.bit(bit)) {
                return null;
            }
        }
        return cidr;
    }

    /** Whether every address of {@code other} is in this block. */
    public boolean contains(Cidr other) {
        if (other.address.length != address.length || other.prefix < prefix) {
            return false;
        }
        for (int bit = 0; bit < prefix; bit++) {
            if (bit(bit) != other.bit(bit)) {
                return false;
            }
        }
        return true;
    }

    /** The link-local blocks inside this one: what a NetworkPolicy ipBlock must list as {@code except}. */
    public List<String> linkLocalInside() {
        return LINK_LOCAL.stream().filter(block -> contains(known(block))).toList();
    }

    /** Whether this block lies within a link-local one. */
    public boolean isLinkLocal() {
        return LINK_LOCAL.stream().anyMatch(block -> known(block).contains(this));
    }

    private static Cidr known(String block) {
        Cidr cidr = parse(block);
        if (cidr == null) {
            throw new IllegalArgumentException(block);
        }
        return cidr;
    }

    private boolean bit(int index) {
        return (address[index / 8] & (0x80 >> (index % 8))) != 0;
    }
}
