package dev.conch.spring.fence;

import jakarta.persistence.Entity;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.Id;

/** A row the JPA tests write through Spring Data. */
@Entity
public class Note {

  @Id @GeneratedValue private Long id;

  private String text;

  private long token;

  protected Note() {}

  Note(String text, long token) {
    this.text = text;
    this.token = token;
  }

  public String getText() {
    return this.text;
  }

  public long getToken() {
    return this.token;
  }
}
