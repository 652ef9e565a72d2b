package dev.conch.local;

import dev.conch.Election;
import dev.conch.ElectionContractTest;
import dev.conch.ElectionOptions;
import dev.conch.FencedLock;

class LocalElectionContractTest extends ElectionContractTest {

  private final LocalOffices offices = new LocalOffices();

  @Override
  protected Election newElection(ElectionOptions options) {
    return offices.election(options);
  }

  @Override
  protected FencedLock lock(String office) {
    return offices.lock(office);
  }
}
