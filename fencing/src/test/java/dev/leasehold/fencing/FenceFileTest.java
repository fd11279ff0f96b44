package dev.leasehold.fencing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The fence file: higher and equal fences are recorded, a stale one is refused. */
class FenceFileTest {
  @TempDir Path dir;

  @Test
  void aStaleWriterIsRefusedAndTheHighestFenceStays() throws Exception {
    Path file = dir.resolve("backup.fence");

    assertThat(FenceFile.check(file, 4)).isZero();
    assertThat(FenceFile.check(file, 4)).isEqualTo(4);
    assertThat(FenceFile.check(file, 9)).isEqualTo(4);
    assertThatThrownBy(() -> FenceFile.check(file, 7))
        .isInstanceOf(StaleFenceException.class)
        .hasMessage("stale fence 7 for " + file + ": fence 9 was already seen");

    assertThat(Files.readString(file)).isEqualTo("00000000000000000009\n");
    assertThat(FenceFile.check(file, 10)).isEqualTo(9);
  }

  @Test
  void aFileThatHoldsNoFenceIsAnErrorNotAPass() throws Exception {
    Path file = Files.writeString(dir.resolve("notes.txt"), "hello");

    assertThatThrownBy(() -> FenceFile.check(file, 1))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("is not a fence file");
    assertThat(Files.readString(file)).isEqualTo("hello");
  }
}
