package dev.leasehold.app.admin;

import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.UnknownHostException;
import java.util.Collection;
import java.util.Collections;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * The host names a request may be addressed to ({@code Host}, and {@code Origin} for state-changing
 * requests). A web page that rebinds its own name to 127.0.0.1 still sends its own name, so it is
 * refused. Allowed: the loopback names ({@code localhost}, {@code 127.0.0.1}, {@code ::1}), the
 * listen address, and {@code admin.allowed-hosts}; when the endpoint listens on every interface
 * ({@code 0.0.0.0} or {@code ::}), also every address of the machine's interfaces and its host
 * name, which probes and scrapers use.
 */
final class AllowedHosts {
  private final Set<String> names;

  private AllowedHosts(Set<String> names) {
    this.names = Collections.unmodifiableSet(names);
  }

  static AllowedHosts of(String listenHost, Collection<String> configured) {
    Set<String> names = new TreeSet<>();
    names.add("localhost");
    names.add("127.0.0.1");
    names.add("::1");
    names.add(normalize(listenHost));
    configured.forEach(name -> names.add(normalize(name)));
    if (isWildcard(listenHost)) {
      try {
        for (NetworkInterface nic : Collections.list(NetworkInterface.getNetworkInterfaces())) {
          for (InetAddress address : Collections.list(nic.getInetAddresses())) {
            names.add(normalize(address.getHostAddress()));
          }
        }
      } catch (SocketException e) {
        // no interface list: the names above remain
      }
      try {
        names.add(normalize(InetAddress.getLocalHost().getHostName()));
      } catch (UnknownHostException e) {
        // no host name: the addresses remain
      }
    }
    return new AllowedHosts(names);
  }

  private static boolean isWildcard(String host) {
    return host.equals("0.0.0.0") || host.equals("::") || host.equals("0:0:0:0:0:0:0:0");
  }

  /** Whether {@code hostHeader} ({@code name}, {@code name:port}, {@code [v6]:port}) is allowed. */
  boolean allows(String hostHeader) {
    return host(hostHeader).map(names::contains).orElse(false);
  }

  Set<String> names() {
    return names;
  }

  /** The host part of a {@code Host} header value, lower case, without port or brackets. */
  static Optional<String> host(String hostHeader) {
    String h = hostHeader.strip();
    if (h.startsWith("[")) {
      int end = h.indexOf(']');
      return end < 0 ? Optional.empty() : Optional.of(normalize(h.substring(1, end)));
    }
    int colon = h.indexOf(':');
    if (colon >= 0 && h.indexOf(':', colon + 1) >= 0) {
      return Optional.of(normalize(h)); // a bare IPv6 address
    }
    return Optional.of(normalize(colon < 0 ? h : h.substring(0, colon)));
  }

  private static String normalize(String name) {
    String n = name.strip().toLowerCase(Locale.ROOT);
    if (n.endsWith(".")) {
      n = n.substring(0, n.length() - 1);
    }
    int zone = n.indexOf('%'); // fe80::1%eth0
    if (zone >= 0 && n.contains(":")) {
      n = n.substring(0, zone);
    }
    if (n.contains(":")) {
      try {
        n = InetAddress.getByName(n).getHostAddress().toLowerCase(Locale.ROOT);
        int z = n.indexOf('%');
        n = z < 0 ? n : n.substring(0, z);
        n = n.equals("0:0:0:0:0:0:0:1") ? "::1" : n;
      } catch (UnknownHostException e) {
        // not an address: kept as written
      }
    }
    return n;
  }
}
