package dev.leasehold.fencing;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Objects;

/**
 * A fence file next to what a job writes (a backup volume, an export directory): {@link #check}
 * compares a run's fence with the highest recorded and records it, under an exclusive lock on the
 * file, so of two writers the one with the lower fence is refused.
 *
 * <p>Why it is safe: the whole compare-and-record happens while holding {@link FileChannel#lock()}
 * (an {@code fcntl} lock on Linux, honoured by every process that uses this class or {@code
 * leasehold fence check}); the record is one fixed-width write of 21 bytes at offset 0, so a crash
 * leaves the old or the new number, never a mix. An equal fence passes (a run may check twice).
 */
public final class FenceFile {
  private static final int WIDTH = 20; // digits of Long.MAX_VALUE, zero-padded

  private FenceFile() {}

  /**
   * Records {@code fence} in {@code file} (created if missing), or refuses it.
   *
   * @return the fence recorded before, 0 when none
   * @throws StaleFenceException when a higher fence was recorded
   * @throws IOException when the file cannot be read, locked or written, or holds no fence
   */
  public static long check(Path file, long fence) throws IOException, StaleFenceException {
    Objects.requireNonNull(file, "file");
    if (fence < 0) {
      throw new IllegalArgumentException("fence must not be negative, got " + fence);
    }
    try (FileChannel channel =
            FileChannel.open(
                file,
                StandardOpenOption.CREATE,
                StandardOpenOption.READ,
                StandardOpenOption.WRITE);
        FileLock lock = channel.lock()) {
      long seen = read(channel, file);
      if (fence < seen) {
        throw new StaleFenceException(file.toString(), fence, "fence " + seen);
      }
      if (fence > seen || channel.size() == 0) {
        String text = String.format("%0" + WIDTH + "d\n", fence);
        ByteBuffer bytes = ByteBuffer.wrap(text.getBytes(StandardCharsets.US_ASCII));
        while (bytes.hasRemaining()) {
          channel.write(bytes, bytes.position());
        }
        channel.force(true);
      }
      return seen;
    }
  }

  private static long read(FileChannel channel, Path file) throws IOException {
    if (channel.size() == 0) {
      return 0;
    }
    if (channel.size() > 64) {
      throw new IOException(file + " is not a fence file (" + channel.size() + " bytes)");
    }
    ByteBuffer bytes = ByteBuffer.allocate((int) channel.size());
    while (bytes.hasRemaining() && channel.read(bytes, bytes.position()) >= 0) {
      // read it all
    }
    String text = new String(bytes.array(), StandardCharsets.US_ASCII).strip();
    try {
      if (text.matches("[0-9]{1,20}")) {
        return Long.parseLong(text);
      }
    } catch (NumberFormatException e) {
      // beyond a long: not ours
    }
    throw new IOException(file + " is not a fence file (expected a number)");
  }
}
