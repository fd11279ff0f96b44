package dev.leasehold.store.mongo;

import com.mongodb.MongoException;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.IndexOptions;
import com.mongodb.client.model.Indexes;
import com.mongodb.client.model.Projections;
import com.mongodb.client.model.Sorts;
import dev.leasehold.core.job.ExecutionLog;
import dev.leasehold.core.job.ExecutionRecord;
import dev.leasehold.core.job.HistoryRetention;
import dev.leasehold.core.job.Outcome;
import dev.leasehold.core.job.TriggerKind;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.bson.Document;
import org.bson.conversions.Bson;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link ExecutionLog} in a MongoDB collection (default {@code leasehold_executions}), one document
 * per execution attempt. An index on {@code {job, startedAt}} serves {@code history}; a TTL index
 * on {@code finishedAt} lets the server delete records older than the retention (default 30 days).
 * The indexes are created on first use, not on open, so opening the store does no I/O; a failed
 * creation is tried again on the next call.
 */
public final class MongoExecutionLog implements ExecutionLog {
  private static final Logger LOG = LoggerFactory.getLogger(MongoExecutionLog.class);

  private final MongoCollection<Document> executions;
  private final Duration retention;
  private volatile boolean indexed;

  MongoExecutionLog(MongoCollection<Document> executions, Duration retention) {
    this.executions = executions;
    this.retention = retention;
  }

  @Override
  public void record(ExecutionRecord r) {
    Document doc =
        new Document("job", r.job())
            .append("fireTime", Date.from(r.fireTime()))
            .append("node", r.node())
            .append("fence", r.fence())
            .append("trigger", r.trigger().name())
            .append("startedAt", Date.from(r.startedAt()))
            .append("finishedAt", Date.from(r.finishedAt()))
            .append("outcome", r.outcome().name())
            .append("exitCode", r.exitCode())
            .append("detail", r.detail())
            .append("output", r.output())
            .append("attempt", r.attempt());
    MongoErrors.call(
        "execution record of " + r.job(),
        () -> {
          ensureIndexes();
          return executions.insertOne(doc);
        });
  }

  @Override
  public List<ExecutionRecord> recent(String job, int limit) {
    if (limit < 1) {
      throw new IllegalArgumentException("limit must be at least 1, got " + limit);
    }
    Bson filter = job == null ? new Document() : Filters.eq("job", job);
    return MongoErrors.call(
        "history read",
        () -> {
          ensureIndexes();
          List<ExecutionRecord> out = new ArrayList<>();
          for (Document d :
              executions.find(filter).sort(Sorts.descending("startedAt")).limit(limit)) {
            out.add(fromDocument(d));
          }
          return out;
        });
  }

  /**
   * Documents whose {@code finishedAt} is before the cutoff, then the oldest of every job beyond
   * {@code max-per-job} (jobs from {@code distinct}, each counted), each step a bounded find of ids
   * through an index followed by one {@code deleteMany} of those ids. The TTL index, where the
   * server honours it, removes old documents on its own as well; this keeps the bound on servers
   * that do not and for {@code max-per-job}.
   */
  @Override
  public int prune(HistoryRetention retention, Instant now, int limit) {
    if (limit < 1) {
      throw new IllegalArgumentException("limit must be at least 1, got " + limit);
    }
    return MongoErrors.call(
        "history prune",
        () -> {
          ensureIndexes();
          int removed =
              delete(
                  executions
                      .find(Filters.lt("finishedAt", Date.from(retention.cutoff(now))))
                      .projection(Projections.include("_id"))
                      .limit(limit));
          if (removed == limit) {
            return removed;
          }
          for (String job : executions.distinct("job", String.class)) {
            if (executions.countDocuments(Filters.eq("job", job)) <= retention.maxPerJob()) {
              continue;
            }
            removed +=
                delete(
                    executions
                        .find(Filters.eq("job", job))
                        .sort(Sorts.descending("startedAt", "_id"))
                        .skip(retention.maxPerJob())
                        .projection(Projections.include("_id"))
                        .limit(limit - removed));
            if (removed == limit) {
              break;
            }
          }
          return removed;
        });
  }

  private int delete(Iterable<Document> found) {
    List<Object> ids = new ArrayList<>();
    for (Document d : found) {
      ids.add(d.get("_id"));
    }
    if (ids.isEmpty()) {
      return 0;
    }
    return (int) executions.deleteMany(Filters.in("_id", ids)).getDeletedCount();
  }

  private void ensureIndexes() {
    if (indexed) {
      return;
    }
    try {
      executions.createIndex(
          Indexes.compoundIndex(Indexes.ascending("job"), Indexes.descending("startedAt")),
          new IndexOptions().name("job_startedAt"));
    } catch (MongoException e) {
      if (!MongoErrors.isUnsupported(e)) {
        throw e;
      }
      LOG.warn(
          "history index on {} not created: the server does not support it ({}); history works,"
              + " reads scan the collection",
          executions.getNamespace(),
          MongoErrors.serverMessage(e));
    }
    try {
      executions.createIndex(
          Indexes.ascending("finishedAt"),
          new IndexOptions()
              .name("finishedAt_ttl")
              .expireAfter(retention.getSeconds(), TimeUnit.SECONDS));
    } catch (MongoException e) {
      if (MongoErrors.isUnsupported(e)) {
        LOG.warn(
            "history retention not enforced on {}: the server does not support TTL indexes ({});"
                + " old records stay until deleted by hand",
            executions.getNamespace(),
            MongoErrors.serverMessage(e));
        indexed = true;
        return;
      }
      if (e.getCode() != 85 && e.getCode() != 86) {
        throw e;
      }
      // IndexOptionsConflict: the collection keeps an earlier retention until an operator runs
      // collMod; history still works, so this is a warning and not a failure
      LOG.warn(
          "history retention index on {} has another expireAfterSeconds than the configured {}s;"
              + " change it with db.runCommand({collMod: \"{}\", index: {name: \"finishedAt_ttl\","
              + " expireAfterSeconds: {}}})",
          executions.getNamespace(),
          retention.getSeconds(),
          executions.getNamespace().getCollectionName(),
          retention.getSeconds());
    }
    indexed = true;
  }

  private static ExecutionRecord fromDocument(Document d) {
    Number fence = d.get("fence", Number.class);
    Number exitCode = d.get("exitCode", Number.class);
    Number attempt = d.get("attempt", Number.class);
    return new ExecutionRecord(
        d.getString("job"),
        instant(d, "fireTime"),
        d.getString("node"),
        fence == null ? 0 : fence.longValue(),
        TriggerKind.valueOf(d.getString("trigger").toUpperCase(Locale.ROOT)),
        instant(d, "startedAt"),
        instant(d, "finishedAt"),
        Outcome.valueOf(d.getString("outcome").toUpperCase(Locale.ROOT)),
        exitCode == null ? null : exitCode.intValue(),
        d.getString("detail"),
        d.getString("output"),
        attempt == null ? 1 : attempt.intValue());
  }

  private static Instant instant(Document d, String field) {
    return d.getDate(field).toInstant();
  }
}
