package dev.leasehold.examples.ledger;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.scheduling.annotation.EnableScheduling;

/** A replicated service with one job: every 2 s, on one replica, a line in the ledger. */
@SpringBootApplication
@EnableScheduling
public class LedgerApplication {
  public static void main(String[] args) {
    SpringApplication.run(LedgerApplication.class, args);
  }
}
