package dev.conch.spring.fence;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.conch.Holder;
import dev.conch.Leadership;
import dev.conch.jdbc.StaleTokenException;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.orm.jpa.JpaTransactionManager;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.annotation.Transactional;

/**
 * The fence under JPA: Hibernate and Spring Data through Spring Boot's {@code
 * JpaTransactionManager}, which binds the JDBC connection of its entity manager to the transaction,
 * so the fence runs on the connection that flushes the entities; the JdbcTemplate tests of {@link
 * JdbcFenceContract} run under the same manager.
 */
@Import(JpaFenceContract.NotesConfiguration.class)
abstract class JpaFenceContract extends JdbcFenceContract {

  @Autowired NoteRepository repository;

  @Autowired Notes notes;

  @Autowired FencedNoteRepository fencedNotes;

  @Autowired javax.sql.DataSource dataSource;

  @Override
  Class<? extends PlatformTransactionManager> expectedTransactionManager() {
    return JpaTransactionManager.class;
  }

  @BeforeEach
  void cleanNotes() throws java.sql.SQLException {
    this.repository.deleteAll();
    this.fencedNotes.deleteAll();
    try (java.sql.Connection c = this.dataSource.getConnection()) {
      dev.conch.jdbc.FenceSchema.create()
          .installColumnTrigger(c, "fenced_note", "fence_token", OFFICE);
    }
  }

  @Test
  void anEntityWithAFenceTokenFieldCarriesItsTermToTheFenceColumn() {
    Leadership term = this.offices.awaitLeading(OFFICE);
    this.notes.saveFencedNote("kept");
    assertThat(this.fencedNotes.findAll())
        .singleElement()
        .satisfies(note -> assertThat(note.getFenceToken()).isEqualTo(term.token()));
    this.notes.renameFencedNotes("renamed"); // an update carries it too
    assertThat(this.fencedNotes.findAll())
        .singleElement()
        .satisfies(note -> assertThat(note.getText()).isEqualTo("renamed"));
  }

  @Test
  void theDatabaseRefusesAnEntityWithAStaleTokenOrNoneEvenWithoutTheCheck() {
    Leadership old = this.offices.awaitLeading(OFFICE);
    Holder newer = this.offices.electOther(OFFICE, "node-b");
    writeAsNewerLeader("new", newer);

    // Written outside any fence: the trigger alone decides.
    assertThat(
            dev.conch.jdbc.FenceSchema.staleToken(
                catchThrowable(() -> this.notes.saveUnfenced(new FencedNote("old", old.token())))))
        .hasValueSatisfying(refusal -> assertThat(refusal.currentToken()).isEqualTo(newer.rev()));
    assertThat(
            dev.conch.jdbc.FenceSchema.isRefusal(
                catchThrowable(() -> this.notes.saveUnfenced(new FencedNote("none"))),
                dev.conch.jdbc.FenceSchema.MISSING_TOKEN_SQLSTATE))
        .isTrue();
    assertThat(this.fencedNotes.count()).isZero();
  }

  @Test
  void entitySavedInAFencedTransactionCommitsWithTheTermsToken() {
    Leadership term = this.offices.awaitLeading(OFFICE);
    this.notes.save("kept", term.token());
    assertThat(this.repository.findAll())
        .singleElement()
        .satisfies(note -> assertThat(note.getToken()).isEqualTo(term.token()));
    assertThat(fenceToken(OFFICE)).isEqualTo(term.token());
  }

  @Test
  void staleTokenRollsBackTheFlushedEntity() {
    Leadership old = this.offices.awaitLeading(OFFICE);
    Holder newer = this.offices.electOther(OFFICE, "node-b");
    writeAsNewerLeader("new", newer);

    assertThatExceptionOfType(StaleTokenException.class)
        .isThrownBy(() -> this.notes.saveFlushThenFence("lost", old));
    assertThat(this.repository.count()).isZero();
  }

  @Test
  void followerCannotSaveAnEntity() {
    this.offices.electOther(OFFICE, "node-c");
    assertThatExceptionOfType(dev.conch.spring.fence.FenceUnavailableException.class)
        .isThrownBy(() -> this.notes.save("never", 0));
    assertThat(this.repository.count()).isZero();
  }

  /** The JPA writer. */
  static class Notes {

    private final NoteRepository repository;

    private final TransactionFence fence;

    private final FencedNoteRepository fencedNotes;

    Notes(NoteRepository repository, TransactionFence fence, FencedNoteRepository fencedNotes) {
      this.repository = repository;
      this.fence = fence;
      this.fencedNotes = fencedNotes;
    }

    @Transactional
    @Fenced
    public void save(String text, long token) {
      this.repository.save(new Note(text, token));
    }

    @Transactional
    @Fenced
    public void saveFencedNote(String text) {
      this.fencedNotes.save(new FencedNote(text));
    }

    @Transactional
    @Fenced
    public void renameFencedNotes(String text) {
      this.fencedNotes.findAll().forEach(note -> note.setText(text));
    }

    /** A save in a transaction that no fence checks. */
    @Transactional
    public void saveUnfenced(FencedNote note) {
      this.fencedNotes.saveAndFlush(note);
    }

    /** The INSERT reaches the database before the fence refuses: the rollback must undo it. */
    @Transactional
    public void saveFlushThenFence(String text, Leadership term) {
      this.repository.saveAndFlush(new Note(text, term.token()));
      this.fence.fence(term);
    }
  }

  @org.springframework.context.annotation.Configuration(proxyBeanMethods = false)
  static class NotesConfiguration {

    @Bean
    Notes notes(
        NoteRepository repository, TransactionFence fence, FencedNoteRepository fencedNotes) {
      return new Notes(repository, fence, fencedNotes);
    }
  }
}
