package dev.leasehold.bench;

import dev.leasehold.core.store.StoreBackend;
import dev.leasehold.store.etcd.EtcdServers;
import dev.leasehold.store.etcd.EtcdStoreFactory;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import org.openjdk.jmh.annotations.Benchmark;

/**
 * The etcd store against one etcd 3.4 member this benchmark starts (loopback, temp dir). Floors: a
 * linearizable read of one key and a put of one key, each one call to the JSON gateway through the
 * JDK HTTP client, as the store makes them. No ShedLock counterpart is measured.
 */
public class EtcdBench extends LeaseBench {
  private EtcdServers etcd;
  private HttpClient http;
  private URI range;
  private URI put;
  private String key;

  @Override
  protected StoreBackend open() {
    etcd = EtcdServers.start(1);
    http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    range = URI.create(etcd.urls().get(0) + "/v3/kv/range");
    put = URI.create(etcd.urls().get(0) + "/v3/kv/put");
    key = Base64.getEncoder().encodeToString((RUN + "-raw").getBytes(StandardCharsets.UTF_8));
    return new EtcdStoreFactory().open(etcd.settings());
  }

  @Override
  protected void close() {
    etcd.close();
  }

  private String post(URI uri, String body) throws Exception {
    HttpResponse<String> r =
        http.send(
            HttpRequest.newBuilder(uri).POST(HttpRequest.BodyPublishers.ofString(body)).build(),
            HttpResponse.BodyHandlers.ofString());
    if (r.statusCode() != 200) {
      throw new IllegalStateException("etcd answered " + r.statusCode() + ": " + r.body());
    }
    return r.body();
  }

  /** The floor: a linearizable range read of one key. */
  @Benchmark
  public String raw_ping() throws Exception {
    return post(range, "{\"key\":\"" + key + "\",\"count_only\":true}");
  }

  /** One put: the floor of a write through Raft. */
  @Benchmark
  public String raw_put() throws Exception {
    return post(put, "{\"key\":\"" + key + "\",\"value\":\"eA==\"}");
  }
}
