package dev.leasehold.app;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.util.internal.PlatformDependent;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The daemon's entry points turn Netty's Flight Recorder events off unless asked for them: each
 * case runs in a JVM of its own, since Netty reads the setting once per process.
 */
class NettyFlightRecorderTest {

  @Test
  void offByDefault() throws Exception {
    assertThat(probe()).isEqualTo("jfr=false");
  }

  @Test
  void anOperatorsSettingWins() throws Exception {
    assertThat(probe("-Dio.netty.jfr.enabled=true")).isEqualTo("jfr=true");
  }

  private static String probe(String... jvmOptions) throws Exception {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(List.of(jvmOptions));
    command.addAll(List.of("-cp", System.getProperty("java.class.path"), Probe.class.getName()));
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    String out = new String(p.getInputStream().readAllBytes()).strip();
    assertThat(p.exitValue()).as(out).isZero();
    return out.lines().reduce((a, b) -> b).orElse("");
  }

  /** Prepares the JVM as {@code Main} does, allocates a Netty buffer, prints Netty's setting. */
  static final class Probe {
    public static void main(String[] args) {
      Main.prepareJvm();
      ByteBuf buffer = ByteBufAllocator.DEFAULT.buffer(64);
      buffer.release();
      System.out.println("jfr=" + PlatformDependent.isJfrEnabled());
    }
  }
}
