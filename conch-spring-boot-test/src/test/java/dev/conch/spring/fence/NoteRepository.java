package dev.conch.spring.fence;

import org.springframework.data.jpa.repository.JpaRepository;

/** Notes, through Spring Data JPA. */
public interface NoteRepository extends JpaRepository<Note, Long> {}
