package dev.leasehold.app.report;

import dev.leasehold.core.store.Redaction;
import dev.leasehold.core.store.TerminalText;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** An aligned plain-text table: one header row, columns padded to their widest cell. */
public final class TextTable {
  private TextTable() {}

  /**
   * @param columns the keys to show, in order; headers are the keys upper-cased with spaces
   * @param rows the rows; a {@code null} cell prints as {@code -}
   */
  public static String render(List<String> columns, List<? extends Map<String, Object>> rows) {
    List<String[]> lines = new ArrayList<>();
    lines.add(columns.stream().map(c -> c.replace('_', ' ').toUpperCase()).toArray(String[]::new));
    for (Map<String, Object> row : rows) {
      lines.add(
          columns.stream()
              .map(
                  c ->
                      row.get(c) == null
                          ? "-"
                          : TerminalText.line(Redaction.scrub(String.valueOf(row.get(c)))))
              .toArray(String[]::new));
    }
    int[] widths = new int[columns.size()];
    for (String[] line : lines) {
      for (int i = 0; i < line.length; i++) {
        widths[i] = Math.max(widths[i], line[i].length());
      }
    }
    StringBuilder out = new StringBuilder();
    for (String[] line : lines) {
      StringBuilder l = new StringBuilder();
      for (int i = 0; i < line.length; i++) {
        l.append(i == line.length - 1 ? line[i] : String.format("%-" + widths[i] + "s  ", line[i]));
      }
      out.append(l.toString().stripTrailing()).append('\n');
    }
    return out.toString();
  }
}
